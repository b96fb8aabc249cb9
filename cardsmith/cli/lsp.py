"""`cardsmith lsp`: the language server for pack folders, over stdio."""

from __future__ import annotations

import sys

import click

from . import main


@main.command()
@click.option("--stdio", is_flag=True, help="Talk LSP over standard input and output (the default and only "
              "transport; accepted because editors pass it).")
@click.option("--log", "log_file", metavar="FILE", help="Write the server's log to FILE.")
def lsp(stdio: bool, log_file: str | None) -> None:
    """Run the cardsmith language server for pack folders (LSP over stdio).

    An editor starts it and talks to it; it is not for a terminal. For every YAML file inside a
    pack (a folder with a pack.yaml, and what it extends) it gives: diagnostics as you type, the
    same as `cardsmith validate`; completion of effect-language words and the pack's names
    (resources, zones, traits and their values, timings, macros, card ids); hover with a card's
    English and Japanese text and bytecode, a name's declaration, a macro's body; go to
    definition, find references and rename (card ids, macros); semantic highlighting of effect
    text; quick fixes for "did you mean" hints. Setting it up in VS Code and Neovim:
    docs/editing.rst; the VS Code extension is in editors/vscode/.

    \b
    Examples:
      cardsmith lsp                          what an editor runs
      cardsmith lsp --stdio --log lsp.log    with a log, for a bug report
    """
    try:
        from cardsmith.lsp.server import main as serve
    except ImportError as e:  # pygls is the optional `lsp` extra
        click.echo(f"cardsmith: the language server needs pygls ({e.name}): python3 -m pip install "
                   "'cardsmith[lsp]'", err=True)
        sys.exit(2)
    serve(log_file)
