// The cardsmith extension: starts `cardsmith lsp` for the YAML files of card packs and hands it to VS Code's
// language client. Everything else (diagnostics, completion, hover, navigation, rename, highlighting) is the
// server's; the TextMate injection in syntaxes/ colours the effect language before the server answers.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("cardsmith").get("server.command") || ["cardsmith", "lsp"];
  const serverOptions = { command: command[0], args: command.slice(1), transport: TransportKind.stdio };
  const clientOptions = {
    // every YAML file: the server answers for the files inside a pack (a folder with a pack.yaml) only
    documentSelector: [{ scheme: "file", language: "yaml" }],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.yaml") },
  };
  client = new LanguageClient("cardsmith", "cardsmith", serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
