"""The `cardsmith` command line.

Exit codes: 0 clean, 1 findings (diagnostics, failed scenarios), 2 usage or internal error.
User input never produces a Python traceback; set CARDSMITH_DEBUG=1 to see one for an
internal error.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import traceback

import click

from cardsmith import __version__


class _TerminalFilter:
    """Writes to a terminal with every escape sequence but cardsmith's own colours shown escaped: a pack's texts
    (card names, labels, messages quoting them) cannot retitle, clear or drive the terminal."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from cardsmith.bytecode.inputs import for_terminal

        return self._stream.write(for_terminal(text))

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _tolerant_streams() -> None:
    """Text that cannot be encoded for this terminal (a file name that is not UTF-8 under a strict locale) is
    written escaped, never an error: every name from outside is already shown with `printable`, this is the
    net under it. On a terminal, control characters are shown escaped too (_TerminalFilter)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        # not a text file of ours (a test runner's buffer): leave it be
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
            if stream.isatty() and not isinstance(stream, _TerminalFilter):
                setattr(sys, name, _TerminalFilter(stream))


# The commands, the module that defines each (imported only when the command runs, or its --help is asked for,
# so that `cardsmith --help` does not load the compiler and the VM) and the first paragraph of its help, which
# `cardsmith --help` lists. tests/test_cli.py checks both against the commands themselves.
COMMANDS = {
    "balance": ("balance", "Simulate seeded games and write a balance report: an HTML page with plots."),
    "compile": ("build", "Compile a pack to bytecode (versioned JSON)."),
    "coverage": ("coverage", "List the language features each card uses, and how many cards use each feature."),
    "describe": ("reference", "Print the text of every card's abilities, generated from the compiled pack."),
    "diff": ("catalog", "Compare two versions of a pack, card by card."),
    "disasm": ("build", "Print bytecode beside the source line it came from."),
    "export": ("catalog", "Export a pack's cards as a relational database: SQLite, CSV or JSON."),
    "lsp": ("lsp", "Run the cardsmith language server for pack folders (LSP over stdio)."),
    "new": ("scaffold", "Create a pack or a card from a template that validates at once."),
    "packs": ("build", "List the built-in packs with their versions and card counts."),
    "play": ("interactive", "Play a game in the terminal: you take one seat, bots the others."),
    "query": ("catalog", "Find cards by what they are and what they do."),
    "reference": ("reference", "Write the rule reference and card catalogue of a pack."),
    "replay": ("play", "Re-run logged games and verify that each plays out exactly as logged."),
    "resume": ("saves", "Resume a saved game and play it to the end with the saved agents."),
    "schema": ("build", "Print the JSON Schemas validation uses (pack, rules, cards, scenario)."),
    "sheets": ("reference", "Print cards on sheets: 63 x 88 mm, 3 x 3 per page, 3 mm bleed, crop marks."),
    "simulate": ("play", "Play many seeded games with bots and report scores and win rates."),
    "site": ("catalog", "Build a static card browser: a folder that works from file:// and any static host."),
    "test": ("play", "Run scenario files: a starting state, a program with scripted decisions, the expected state."),
    "validate": ("validate", "Check card packs: YAML, schemas, effect-language syntax, names, types and timings."),
}


class _Group(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in COMMANDS:
            importlib.import_module(f"{__name__}.{COMMANDS[name][0]}")
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list of commands from COMMANDS, as click would write it, without importing any of them."""
        from click.utils import make_default_short_help

        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = [(n, make_default_short_help(COMMANDS[n][1], limit) if n in COMMANDS and n not in self.commands
                 else self.commands[n].get_short_help_str(limit)) for n in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context):
        _tolerant_streams()
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except BrokenPipeError:
            # `cardsmith ... | head`: the reader left; stop quietly, as Unix tools do.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(141)
        except OSError as e:  # the machine's answer, not a bug: a full disk, a folder that is not there, no permission
            if os.environ.get("CARDSMITH_DEBUG"):
                traceback.print_exc()
            from cardsmith.bytecode.inputs import printable

            where = f"{printable(str(e.filename))}: " if e.filename else ""
            click.echo(f"cardsmith: {where}{(e.strerror or str(e)).lower()}", err=True)
            sys.exit(2)
        except Exception as e:  # an internal error: say so plainly, exit 2
            if os.environ.get("CARDSMITH_DEBUG"):
                traceback.print_exc()
            click.echo(f"cardsmith: internal error: {type(e).__name__}: {e}\n"
                       "This is a bug in cardsmith, not in your files. Set CARDSMITH_DEBUG=1 for details.",
                       err=True)
            sys.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="cardsmith")
def main() -> None:
    """cardsmith: card games as data. Validate packs, compile them to bytecode, run
    scenario tests and simulate whole games.

    A PACK is a built-in pack id (see `cardsmith packs`) or the path of a pack folder.

    \b
    Quick start:
      cardsmith packs                         list the built-in packs
      cardsmith validate cards/               check every pack under cards/
      cardsmith test cards/earth              run the Earth rule scenarios
      cardsmith simulate earth --games 20 --players 3 --seed 7
    """


def _load_all() -> None:
    """Import every command module (each adds its commands to `main`): for tools that walk all the commands."""
    for module in sorted({m for m, _ in COMMANDS.values()}):
        importlib.import_module(f"{__name__}.{module}")
