"""The `cardsmith` command line.

Exit codes: 0 clean, 1 findings (diagnostics, failed scenarios), 2 usage or internal error.
User input never produces a Python traceback; set CARDSMITH_DEBUG=1 to see one for an
internal error.
"""

from __future__ import annotations

import contextlib
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


class _Group(click.Group):
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


def _register() -> None:
    from . import balance, build, catalog, coverage, interactive, lsp, play, reference, saves, scaffold, validate  # noqa: F401  (each module adds its commands to `main`)


_register()
