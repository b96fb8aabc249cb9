"""Make the screenshots of docs/editing.rst.

    python docs/_captures/make_editor_screenshots.py

A real VS Code cannot run here (no display, no download of its build), so the VS Code pictures are *renderings*:
a page drawn in Debian's headless Chromium (through Playwright) from what `cardsmith lsp` really answers for a
built-in pack file (diagnostics, hover, completion, semantic tokens) and from the extension's TextMate grammar.
The page says so in its title bar. The Neovim picture is Neovim itself: it runs in tmux with the documented
set-up (editors/neovim/cardsmith.lua), and the terminal's screen is drawn as it was captured.

Needs the dev extra (pygls, playwright), /usr/bin/chromium, and for the Neovim picture nvim and tmux.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as T
from playwright.sync_api import sync_playwright

from cardsmith.lsp import completion, hover
from cardsmith.lsp.highlight import TOKEN_TYPES, semantic_tokens
from cardsmith.lsp.positions import Lines
from cardsmith.lsp.server import CardsmithServer
from cardsmith.lsp.textmate import grammar

ROOT = Path(__file__).resolve().parent.parent.parent
IMAGES = ROOT / "docs" / "images"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
COLOURS = {"keyword": "#c586c0", "number": "#b5cea8", "operator": "#d4d4d4", "variable": "#9cdcfe",
           "namespace": "#4ec9b0", "property": "#9cdcfe", "enumMember": "#4fc1ff", "event": "#dcdcaa",
           "macro": "#dcdcaa", "type": "#4ec9b0", "parameter": "#9cdcfe", "enum": "#4ec9b0",
           "key": "#569cd6", "string": "#ce9178", "comment": "#6a9955", "textmate": "#c586c0"}

PAGE = """<!doctype html><meta charset="utf-8"><style>
body {{ margin: 0; background: #1e1e1e; font: 13px/19px 'DejaVu Sans Mono', monospace; color: #d4d4d4; }}
.bar {{ background: #323233; color: #ccc; font: 12px sans-serif; padding: 6px 12px; }}
.tab {{ background: #252526; color: #fff; font: 12px sans-serif; padding: 6px 12px; border-bottom: 1px solid #333; }}
.code {{ position: relative; padding: 6px 0; }}
.ln {{ display: inline-block; width: 44px; color: #858585; text-align: right; padding-right: 16px; }}
.row {{ white-space: pre; height: 19px; }}
.err {{ text-decoration: underline wavy #f14c4c; text-underline-offset: 3px; }}
.box {{ position: absolute; background: #252526; border: 1px solid #454545; box-shadow: 0 2px 8px #000;
       font: 12px/17px sans-serif; color: #ccc; padding: 8px 10px; white-space: normal; }}
.box pre {{ font: 11px/15px 'DejaVu Sans Mono', monospace; background: #1e1e1e; padding: 6px; margin: 6px 0 0; }}
.box code {{ font-family: 'DejaVu Sans Mono', monospace; color: #d7ba7d; }}
.item {{ font: 13px/20px 'DejaVu Sans Mono', monospace; padding: 0 8px; }}
.item.sel {{ background: #04395e; }} .item .d {{ color: #888; float: right; padding-left: 24px; }}
.problems {{ border-top: 1px solid #444; background: #1e1e1e; padding: 6px 12px; font: 12px sans-serif; }}
.problems b {{ color: #f14c4c; }}
</style>
<div class="bar">Rendered by docs/_captures/make_editor_screenshots.py from the real answers of
<b>cardsmith lsp</b> and the extension's TextMate grammar, in headless Chromium: not a VS Code window</div>
<div class="tab">{tab}</div><div class="code">{rows}{boxes}</div>{problems}"""


def start_server(files: dict[Path, str]) -> CardsmithServer:
    """A server that opened each file as it is on disk (a clean pack: hovers have text and bytecode), then
    was given the edited text."""
    server = CardsmithServer()
    for path, text in files.items():
        server.ws.open(path, path.read_text(encoding="utf-8"), 1)
        server.ws.compile(server.ws.pack_folder(path))
        server.ws.change(path, text, 2)
        server.ws.compile(server.ws.pack_folder(path))
    return server


def coloured_rows(text: str, tokens: list[int], first: int, last: int, squiggle: T.Range | None) -> list[str]:
    """The lines first..last with YAML keys, strings and comments, TextMate's effect words and the server's
    semantic tokens (which win where both colour a word), and the diagnostic's squiggle."""
    lines = text.split("\n")
    marks: dict[int, dict[int, tuple[int, str]]] = {}  # line -> start -> (end, colour)
    line = col = 0
    for k in range(0, len(tokens), 5):
        line += tokens[k]
        col = tokens[k + 1] if tokens[k] else col + tokens[k + 1]
        marks.setdefault(line, {})[col] = (col + tokens[k + 2], COLOURS[TOKEN_TYPES[tokens[k + 3]]])
    keyword = re.compile(grammar()["repository"]["keyword"]["match"])
    out = []
    for i in range(first, last + 1):
        row = lines[i]
        base = ["#d4d4d4"] * len(row)
        m = re.match(r"^(\s*-?\s*)([A-Za-z0-9_\"'$ -]+?)(:)(\s|$)", row)
        value_from = 0
        if m:
            for j in range(m.start(2), m.end(2)):
                base[j] = COLOURS["key"]
            value_from = m.end(3)
        hash_at = row.find(" #") if not row.lstrip().startswith("#") else row.find("#")
        for j in range(value_from, len(row)):
            base[j] = COLOURS["string"]
        for w in keyword.finditer(row, value_from):
            for j in range(w.start(), w.end()):
                base[j] = COLOURS["textmate"]
        for start, (end, colour) in marks.get(i, {}).items():
            for j in range(start, min(end, len(row))):
                base[j] = colour
        if row.lstrip().startswith("#") or (hash_at >= 0 and row[:hash_at].count('"') % 2 == 0 and hash_at > 0):
            for j in range(hash_at if hash_at >= 0 else 0, len(row)):
                base[j] = COLOURS["comment"]
        err = range(0)
        if squiggle is not None and squiggle.start.line == i:
            err = range(squiggle.start.character, max(squiggle.end.character, squiggle.start.character + 1))
        cells = "".join(
            f'<span style="color:{base[j]}"{" class=err" if j in err else ""}>{html.escape(row[j])}</span>'
            for j in range(len(row)))
        out.append(f'<div class="row"><span class="ln">{i + 1}</span>{cells}</div>')
    return out


def markdown(text: str) -> str:
    """The little Markdown the server's hovers use: code fences, bold, inline code, lists, paragraphs."""
    parts = re.split(r"```\n?(.*?)```", text, flags=re.S)
    out = []
    for n, part in enumerate(parts):
        if n % 2:
            out.append(f"<pre>{html.escape(part)}</pre>")
            continue
        for para in part.strip().split("\n\n"):
            if not para.strip():
                continue
            h = html.escape(para)
            h = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", h)
            h = re.sub(r"`(.+?)`", r"<code>\1</code>", h)
            h = re.sub(r"(?<!\w)_(.+?)_(?!\w)", r"<i>\1</i>", h)
            h = re.sub(r"^- ", "• ", h, flags=re.M).replace("\n", "<br>")
            out.append(f"<p style='margin:4px 0'>{h}</p>")
    return "".join(out)


def box(row: int, first: int, col: int, body: str, width: int) -> str:
    top = (row - first + 1) * 19 + 8
    return f'<div class="box" style="top:{top}px; left:{60 + col * 7.8:.0f}px; width:{width}px">{body}</div>'


def vscode_pictures(page) -> None:
    flora = ROOT / "cards" / "earth" / "flora.yaml"
    text = flora.read_text(encoding="utf-8").replace("gain 1 soil", "gain 1 soyl", 1)
    server = start_server({flora: text})
    state = server.ws.packs[server.ws.pack_folder(flora)]
    lines = Lines(text)
    (d,) = [server.to_lsp(x, lines) for x in state.result.diagnostics.items]
    tokens = semantic_tokens(server.ws, flora, lines)
    at = d.range.start.line
    card_line = max(i for i, row in enumerate(text.split("\n")[:at]) if "- id:" in row)
    hover_text = hover.hover(server.ws, flora, card_line, text.split("\n")[card_line].index("id:") + 6)
    first, last = card_line - 6, at + 16
    rows = coloured_rows(text, tokens, first, last, d.range)
    problems = (f'<div class="problems"><b>⊗</b> {html.escape(d.message)} <span style="color:#888">cardsmith({d.code}) '
                f'[Ln {at + 1}, Col {d.range.start.character + 1}]</span> — help: {html.escape(d.data["hint"])}</div>')
    body = PAGE.format(tab="cards/earth/flora.yaml", rows="".join(rows),
                       boxes=box(card_line, first, 12, markdown(hover_text), 560), problems=problems)
    page.set_content(body)
    page.screenshot(path=str(IMAGES / "editing-vscode-hover.png"), full_page=True)

    tm = ROOT / "cards" / "terraforming-mars" / "cards-001-050.yaml"
    text = tm.read_text(encoding="utf-8").replace('play: "gain 1 plant"', 'play: "when you play a card with tag "',
                                                  1)
    server = start_server({tm: text})
    lines = Lines(text)
    row = next(i for i, r in enumerate(text.split("\n")) if "with tag \"" in r)
    col = text.split("\n")[row].index("with tag ") + len("with tag ")
    items = completion.complete(server.ws, tm, row, col, lines)
    tokens = semantic_tokens(server.ws, tm, lines)
    listing = "".join(f'<div class="item{" sel" if n == 0 else ""}">{html.escape(i.label)}'
                      f'<span class="d">{html.escape(i.detail or "")}</span></div>' for n, i in enumerate(items[:12]))
    first = row - 8
    rows = coloured_rows(text, tokens, first, row + 14, None)
    body = PAGE.format(tab="cards/terraforming-mars/cards-001-050.yaml", rows="".join(rows),
                       boxes=box(row, first, col, listing, 330).replace("padding: 8px 10px", "padding: 2px 0"),
                       problems="")
    page.set_content(body)
    page.screenshot(path=str(IMAGES / "editing-vscode-completion.png"), full_page=True)


ANSI = re.compile(r"\x1b\[([0-9;]*)m")
BASIC = ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
         "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"]


def _xterm(n: int) -> str:
    if n < 16:
        return BASIC[n]
    if n >= 232:
        v = 8 + (n - 232) * 10
        return f"#{v:02x}{v:02x}{v:02x}"
    n -= 16
    steps = [0, 95, 135, 175, 215, 255]
    return f"#{steps[n // 36]:02x}{steps[n // 6 % 6]:02x}{steps[n % 6]:02x}"


def ansi_html(screen: str) -> str:
    """A terminal screen captured with its colours (tmux capture-pane -e) as HTML."""
    fg, bg, bold, out = None, None, False, []
    for line in screen.split("\n"):
        pos, cells = 0, []
        for m in ANSI.finditer(line):
            if m.start() > pos:
                style = (f"color:{fg or '#d4d4d4'};" + (f"background:{bg};" if bg else "") +
                         ("font-weight:bold;" if bold else ""))
                cells.append(f'<span style="{style}">{html.escape(line[pos:m.start()])}</span>')
            codes = [int(c) for c in m.group(1).split(";") if c] or [0]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c == 0:
                    fg, bg, bold = None, None, False
                elif c == 1:
                    bold = True
                elif c == 22:
                    bold = False
                elif 30 <= c <= 37 or 90 <= c <= 97:
                    fg = BASIC[c - 30 if c < 90 else c - 82]
                elif 40 <= c <= 47 or 100 <= c <= 107:
                    bg = BASIC[c - 40 if c < 100 else c - 92]
                elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                    fg, bg = (_xterm(codes[i + 2]), bg) if c == 38 else (fg, _xterm(codes[i + 2]))
                    i += 2
                elif c in (38, 48) and i + 4 < len(codes) and codes[i + 1] == 2:
                    rgb = "#{:02x}{:02x}{:02x}".format(*codes[i + 2:i + 5])
                    fg, bg = (rgb, bg) if c == 38 else (fg, rgb)
                    i += 4
                elif c == 39:
                    fg = None
                elif c == 49:
                    bg = None
                i += 1
            pos = m.end()
        style = f"color:{fg or '#d4d4d4'};" + (f"background:{bg};" if bg else "")
        cells.append(f'<span style="{style}">{html.escape(line[pos:])}</span>')
        out.append(f'<div class="row">{"".join(cells)}</div>')
    return "".join(out)


def neovim_picture(page) -> bool:
    nvim, tmux = shutil.which("nvim"), shutil.which("tmux")
    if nvim is None or tmux is None:
        print("no nvim or tmux: the Neovim picture is left as it is", file=sys.stderr)
        return False
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        shutil.copytree(ROOT / "docs" / "example-pack", tmp / "orchard", ignore=shutil.ignore_patterns("scenarios"))
        cards = tmp / "orchard" / "events.yaml"
        cards.write_text(cards.read_text(encoding="utf-8").replace("gain 3 coin", "gain 3 co"), encoding="utf-8")
        init = tmp / "init.lua"
        init.write_text(f'package.path = "{ROOT}/editors/neovim/?.lua;" .. package.path\n'
                        'vim.cmd("filetype on")\nvim.cmd("syntax on")\nvim.o.termguicolors = true\n'
                        'vim.o.number = true\nvim.o.completeopt = "menuone,noinsert"\n'
                        f'require("cardsmith").setup({{ cmd = {{ "{sys.executable}", "-m", "cardsmith.lsp" }},\n'
                        '  on_attach = function(_, buf) vim.bo[buf].omnifunc = "v:lua.vim.lsp.omnifunc" end })\n',
                        encoding="utf-8")
        env = {**os.environ, "TERM": "xterm-256color", "XDG_STATE_HOME": str(tmp / "state"),
               "XDG_DATA_HOME": str(tmp / "data")}
        session = f"cardsmith-docs-{os.getpid()}"
        subprocess.run([tmux, "new-session", "-d", "-s", session, "-x", "128", "-y", "24",
                        f"{nvim} -n -u {init} {cards}"], check=True, env=env, cwd=tmp)
        try:
            time.sleep(6)  # the server starts and publishes its diagnostic
            row = next(i for i, r in enumerate(cards.read_text().split("\n")) if "gain 3 co " in r) + 1
            col = cards.read_text().split("\n")[row - 1].index("co ") + 2
            subprocess.run([tmux, "send-keys", "-t", session, f":call cursor({row}, {col})", "Enter"], check=True)
            subprocess.run([tmux, "send-keys", "-t", session, "a", "C-x", "C-o"], check=True)
            time.sleep(3)
            screen = subprocess.run([tmux, "capture-pane", "-p", "-e", "-t", session], check=True,
                                    capture_output=True, text=True).stdout
        finally:
            subprocess.run([tmux, "kill-session", "-t", session], capture_output=True)
    page.set_content("<!doctype html><meta charset=utf-8><style>body{margin:0;background:#1e1e1e;"
                     "font:14px/18px 'DejaVu Sans Mono',monospace} .row{white-space:pre;height:18px}</style>"
                     "<div style='padding:6px'>" + ansi_html(screen) + "</div>")
    page.screenshot(path=str(IMAGES / "editing-neovim.png"), full_page=True)
    return True


def main() -> None:
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(profile, executable_path="/usr/bin/chromium", args=ARGS,
                                                   headless=True, viewport={"width": 1200, "height": 600})
        page = ctx.new_page()
        vscode_pictures(page)
        neovim_picture(page)
        ctx.close()
    print("wrote", ", ".join(f.name for f in sorted(IMAGES.glob("editing-*.png"))))


if __name__ == "__main__":
    main()
