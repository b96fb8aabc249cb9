"""`describe`, `reference` and `sheets`: generated card text, rule references and printable cards."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from pathlib import Path

import click

from cardsmith.compiler.diagnostics import did_you_mean
from cardsmith.compiler.packs import resolve_pack_ref
from cardsmith.present.describe import LANGS, Describer

from . import main
from .options import compile_or_exit, output_errors, output_target, write_output

# Text (CJK characters counting double) that still fits a card face at the smallest size.
TEXT_FITS = 900


def _pdf_or_exit():
    from cardsmith.present.render import PdfUnavailable, pdf_engine

    try:
        return pdf_engine()
    except PdfUnavailable as e:
        click.echo(f"cardsmith: {e}", err=True)
        sys.exit(2)


def _folder(pack: str) -> Path | None:
    return resolve_pack_ref(pack)


@contextmanager
def template_errors():
    """A pack template that fails to render (or breaks the sandbox) is the pack's error: report it at
    the template's file and line (E030) and exit 1, having written nothing."""
    from cardsmith.compiler.diagnostics import Diagnostics, Span, render_text
    from cardsmith.present.render import TemplateError

    try:
        yield
    except TemplateError as e:
        diags = Diagnostics()
        from cardsmith.compiler.packs import display_path

        diags.error("E030", f"{e.message}", Span(display_path(Path(e.file)), e.line, 1))
        click.echo(render_text(diags.items), err=True)
        click.echo("nothing was written", err=True)
        sys.exit(1)


@main.command()
@click.argument("pack")
@click.argument("card", required=False)
@click.option("--lang", type=click.Choice(LANGS), default="en", show_default=True, help="Language of the text.")
def describe(pack: str, card: str | None, lang: str) -> None:
    """Print the text of every card's abilities, generated from the compiled pack.

    The text is made from what the compiler checked, not from anything written on the card,
    so it always says what the card does. Words come from the pack: `names:` on rules.yaml
    entries and cards, and the `glossary:` of rules.yaml (which also gives the phrase a macro
    call reads as). With CARD (a card id), only that card.

    \b
    Examples:
      cardsmith describe earth mossback-oak
      cardsmith describe earth --lang ja | less
    """
    res = compile_or_exit(pack)
    d = Describer(res, lang)
    cards = res.pack.cards
    if card:
        c = res.pack.card(card)
        if c is None:
            hint = did_you_mean(card, [x.id for x in cards])
            msg = f"cardsmith: pack '{res.pack.id}' has no card '{card}'" + (f"; {hint}" if hint else "")
            click.echo(msg, err=True)
            sys.exit(2)
        cards = [c]
    from cardsmith.bytecode.inputs import printable

    for c in cards:
        abilities = d.card(c)
        name = printable(d.card_name(c))  # a name may hold an escape sequence: shown, never obeyed
        click.echo(f"{name} ({c.id})" if name != c.id else c.id)
        for a in abilities:
            click.echo(f"  [{printable(a.label)}] {printable(a.text, keep=chr(10))}")
        if not abilities:  # a card of facts only (a map space, a tile): what it is
            click.echo(f"  ({printable(d.facts(c))})")


@main.command()
@click.argument("pack")
@click.option("--format", "fmt", type=click.Choice(["html", "pdf", "md"]), default="html", show_default=True,
              help="html: one self-contained page; pdf: printable (needs the 'pdf' extra); md: Markdown.")
@click.option("--lang", type=click.Choice(LANGS), default="en", show_default=True, help="Language of the text.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here (default: stdout; pdf needs -o).")
def reference(pack: str, fmt: str, lang: str, output: str | None) -> None:
    """Write the rule reference and card catalogue of a pack.

    Generated from rules.yaml and the cards: components (how many different cards of each type,
    and how many in all), setup and the game flow as numbered steps, each action with the
    active player's and the other players' parts, the activation order drawn cell by cell,
    ability timings with their icons, conversions, the end of the game, scoring steps and
    tie-breakers, the game words, then every card with its facts, timing icons and text (the
    parts of a board, card types declared `board: true`, as tables), and an index. Counters the
    rules keep for themselves (`internal: true`) are not listed. A pack can replace the HTML
    templates with its own templates/ folder.

    \b
    Examples:
      cardsmith reference earth -o earth.html
      cardsmith reference earth --format pdf --lang ja -o earth-ja.pdf
      cardsmith reference ./my-pack --format md > REFERENCE.md
    """
    from cardsmith.present.reference import build_reference
    from cardsmith.present.render import html_to_pdf, render_html, render_markdown

    if fmt == "pdf":
        _pdf_or_exit()
        if not output:
            raise click.UsageError("--format pdf needs -o PATH")
    if output:
        output_target(output)
    t0 = time.perf_counter()
    res = compile_or_exit(pack)
    ref = build_reference(res, lang)
    folder = _folder(pack)
    if fmt == "md":
        text = render_markdown(ref)
    else:
        with template_errors():
            text = render_html(ref, folder)
    if fmt == "pdf":
        with output_errors(output):
            html_to_pdf(text, output)
    elif output:
        write_output(output, text)
    else:
        click.echo(text)
    if output:
        click.echo(f"{res.pack.id}: {fmt} reference ({lang}), {len(ref.cards)} cards -> {output} "
                   f"in {time.perf_counter() - t0:.1f}s", err=True)


@main.command()
@click.argument("pack")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="The PDF to write (or .html for the HTML the PDF is made from).")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True)
@click.option("--backs", is_flag=True, help="Add a back page after each front page, mirrored for long-edge duplex.")
@click.option("--copies", is_flag=True, help="Print each card as many times as the deck holds it.")
@click.option("--lang", type=click.Choice(LANGS), default="en", show_default=True, help="Language of the text.")
def sheets(pack: str, output: str, paper: str, backs: bool, copies: bool, lang: str) -> None:
    """Print cards on sheets: 63 x 88 mm, 3 x 3 per page, 3 mm bleed, crop marks.

    Cards sit edge to edge so one cut separates two cards; the block has a 3 mm bleed all round
    and crop marks in the margin on every cut line. Without --backs every side of every card
    is printed; with --backs each front page is followed by a back page mirrored left to right
    (print double-sided, flip on the long edge): a double-sided card gets its other side, any
    other card a card back. Card types declared `board: true` in rules.yaml (map spaces, the
    actions printed on a board, milestones) are not cards a player holds: they follow as
    tables. Each timing's icon has a shape of its own, so icons differ in greyscale too; a
    card's numbers (VP, sprout spaces) print as icons. Templates come from present/templates/
    unless the pack has its own templates/ folder.

    \b
    Examples:
      cardsmith sheets earth -o earth-cards.pdf
      cardsmith sheets earth -o cards.pdf --paper letter --backs --lang ja
    """
    from cardsmith.present.reference import build_reference
    from cardsmith.present.render import html_to_pdf, render_sheets_html, sheet_cards

    to_html = output.lower().endswith((".html", ".htm"))
    if not to_html:
        _pdf_or_exit()
    output_target(output)
    t0 = time.perf_counter()
    res = compile_or_exit(pack)
    ref = build_reference(res, lang)
    with template_errors():
        html, pages = render_sheets_html(ref, paper, backs, copies, _folder(pack))
    tables = sum(1 for c in ref.cards if c.board)
    if to_html:
        write_output(output, html)
    else:
        with output_errors(output):
            pages = html_to_pdf(html, output)  # the cards' pages and the tables' after them
    crowded = [c.id for c in ref.cards if c.text_length > TEXT_FITS and not c.board]
    if crowded:
        click.echo(f"cardsmith: warning: {len(crowded)} card(s) have more text than fits on a 63 x 88 mm card "
                   f"({', '.join(crowded[:5])}{', ...' if len(crowded) > 5 else ''}); give the macros they call a "
                   "short phrase in the glossary of rules.yaml", err=True)
    faces = len(sheet_cards(ref, backs, copies))
    rows = f" and {tables} board parts in tables" if tables else ""
    click.echo(f"{res.pack.id}: {faces} card faces{rows} on {pages} {paper} pages -> {output} "
               f"in {time.perf_counter() - t0:.1f}s", err=True)
