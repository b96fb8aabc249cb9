"""`coverage`: which effect-language features each card of a pack uses."""

from __future__ import annotations

import sys

import click

from cardsmith.compiler.diagnostics import did_you_mean
from cardsmith.compiler.packs import builtin_packs, resolve_pack_ref

from . import main
from .options import compile_or_exit


@main.command("coverage")
@click.argument("pack")
@click.argument("card", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True,
              help="text: features with card counts, then each card; json: the same as data; markdown: tables.")
def coverage_cmd(pack: str, card: str | None, fmt: str) -> None:
    """List the language features each card uses, and how many cards use each feature.

    Features are read from the compiled pack, not from the card text: ability timings,
    trigger patterns, the macros an ability expands, the constructs of the checked AST
    (after macro expansion, so a macro's constructs count for the cards that call it) and
    the opcodes of the bytecode. A designer sees which constructs a set depends on, and
    which cards would be touched by a change to one of them. With CARD (a card id), only
    that card's features, each with the number of cards of the pack that use it.

    \b
    Examples:
      cardsmith coverage earth
      cardsmith coverage earth frostneedle-spruce
      cardsmith coverage terraforming-mars --format json > tm-coverage.json
      cardsmith coverage ./my-pack --format markdown > COVERAGE.md
    """
    from cardsmith.present.coverage import RENDERERS, coverage

    if resolve_pack_ref(pack) is None:
        hint = did_you_mean(pack, builtin_packs())
        click.echo(f"cardsmith: no pack '{pack}': not a built-in pack id nor a folder with a pack.yaml"
                   + (f"; {hint}" if hint else ""), err=True)
        sys.exit(2)
    cov = coverage(compile_or_exit(pack))
    if card is not None and card not in cov.cards:
        hint = did_you_mean(card, list(cov.cards))
        click.echo(f"cardsmith: pack '{cov.pack_id}' has no card '{card}'" + (f"; {hint}" if hint else ""), err=True)
        sys.exit(2)
    click.echo(RENDERERS[fmt](cov, card))
