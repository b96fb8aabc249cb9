-- cardsmith's language server in Neovim (0.7 or newer), without plugins.
--
-- Put this file on your 'runtimepath' as lua/cardsmith.lua (or `dofile` it) and call, in init.lua:
--
--   require("cardsmith").setup()                     -- runs `cardsmith lsp`
--   require("cardsmith").setup({ cmd = { "python3", "-m", "cardsmith", "lsp" } })
--
-- Every YAML buffer inside a pack (a folder with a pack.yaml above the file) is attached to one server per
-- pack root; the server recompiles the pack as you type. docs/editing.rst shows the set-up and the keys.
local M = {}

-- The folder holding the nearest pack.yaml above `file`, or nil.
local function pack_root(file)
  local found = vim.fn.findfile("pack.yaml", vim.fn.fnamemodify(file, ":p:h") .. ";")
  if found == "" then
    return nil
  end
  return vim.fn.fnamemodify(found, ":p:h")
end

function M.setup(opts)
  opts = opts or {}
  local cmd = opts.cmd or { "cardsmith", "lsp" }
  local clients = {} -- pack root -> client id (Neovim 0.7 has no vim.lsp.start)
  vim.api.nvim_create_autocmd("FileType", {
    pattern = "yaml",
    callback = function(args)
      local file = vim.api.nvim_buf_get_name(args.buf)
      local root = pack_root(file)
      if root == nil then
        return
      end
      -- the top folder of a chain of packs, so that packs extending each other share one server
      local workspace = vim.fn.fnamemodify(root, ":h")
      local config = {
        name = "cardsmith",
        cmd = cmd,
        root_dir = workspace,
        on_attach = opts.on_attach,
        capabilities = opts.capabilities,
      }
      if vim.lsp.start then
        vim.lsp.start(config, { bufnr = args.buf })
        return
      end
      local id = clients[workspace]
      if id == nil or vim.lsp.get_client_by_id(id) == nil then
        id = vim.lsp.start_client(config)
        clients[workspace] = id
      end
      vim.lsp.buf_attach_client(args.buf, id)
    end,
  })
end

return M
