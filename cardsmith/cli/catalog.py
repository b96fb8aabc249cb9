"""The card database: `query`, `export`, `diff` and `site`."""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from pathlib import Path

import click

from cardsmith.compiler.diagnostics import Diagnostics, did_you_mean, render_text
from cardsmith.compiler.packs import builtin_packs, resolve_pack_ref
from cardsmith.compiler.pipeline import compile_pack

from . import main
from .options import agent_names, compile_or_exit, player_count

LANG_CHOICE = click.Choice(["en", "ja"])


def _fail(message: str, code: int = 2):
    click.echo(f"cardsmith: {message}", err=True)
    sys.exit(code)


def _catalog(pack: str):
    """The catalog of a pack given on the command line; a missing pack or a failed compile exits."""
    from cardsmith.catalog.records import build_catalog

    if resolve_pack_ref(pack) is None:
        hint = did_you_mean(pack, builtin_packs())
        _fail(f"no pack '{pack}': not a built-in pack id nor a folder with a pack.yaml" + (f"; {hint}" if hint else ""))
    return build_catalog(compile_or_exit(pack))


# ------------------------------------------------------------------------------ query


@main.command("query")
@click.argument("pack")
@click.argument("query", default="")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "ids"]), default="table",
              show_default=True, help="table: one line per card; json: full records; csv: one row per card; "
                                      "ids: one card id per line.")
@click.option("--lang", type=LANG_CHOICE, default="en", show_default=True,
              help="The language of names and types in the table and CSV.")
@click.option("--fields", "list_fields", is_flag=True, help="List the fields the pack's queries can use, and exit.")
def query_cmd(pack: str, query: str, fmt: str, lang: str, list_fields: bool) -> None:
    """Find cards by what they are and what they do.

    QUERY is a search in Scryfall's shape, with the pack's own field names: terms side by
    side must all hold, `or` gives alternatives, `-` negates, parentheses group. A term is
    FIELD:VALUE or FIELD<op>NUMBER (op: = != < <= > >=) without spaces, or a bare word or
    "quoted phrase" matched against names and generated English and Japanese text.

    \b
    Fields (each pack adds its traits and stats by name; --fields lists them):
      type: pack: timing: original:    what the card is
      cost<=3 vp>=2 copies>1           stats (numbers)
      kind:tree tag:science            traits
      uses:draw                        a macro, opcode, construct or name its abilities use
      gains:soil pays: places: ...     what its statements act on (after macro expansion)
      targets:opponent trigger:play    whom it reaches; what its triggers wait for
      text:"compost" name: source:     generated text (en, ja), names, source as written
      sort:cost sort:-vp limit:10      order (pack order by default) and how many

    \b
    Examples:
      cardsmith query earth 'type:event'
      cardsmith query earth 'kind:tree cost<=3 sort:-vp'
      cardsmith query earth 'uses:draw -timing:black' --format ids
      cardsmith query earth-abundance 'targets:opponent pack:earth-abundance'
      cardsmith query terraforming-mars '(tag:science or tag:space) vp>=2' --format json
      cardsmith query earth 堆肥 --lang ja
    """
    from cardsmith.catalog.fields import search_index
    from cardsmith.catalog.query import QueryErrors, run

    cat = _catalog(pack)
    index = search_index(cat)
    if list_fields:
        click.echo(_fields_text(index))
        return
    try:
        found = run(index, query)
    except QueryErrors as e:
        click.echo(e.render(query), err=True)
        sys.exit(2)
    cards = [cat.cards[i] for i in found]
    if fmt == "ids":
        click.echo("\n".join(c.id for c in cards) + ("\n" if cards else ""), nl=False)
    elif fmt == "json":
        click.echo(json.dumps([c.to_json() for c in cards], indent=1, ensure_ascii=False))
    elif fmt == "csv":
        click.echo(_csv(cards, lang), nl=False)
    else:
        click.echo(_table(cards, lang))
        click.echo(f"{len(cards)} of {len(cat.cards)} cards", err=True)


def _stats(c) -> str:
    return " ".join(f"{k}={v}" for k, v in c.stats.items())


def _table(cards, lang: str) -> str:
    rows = [(c.id, c.names.get(lang) or c.name, c.type_label.get(lang) or c.type, ",".join(c.timings), _stats(c))
            for c in cards]
    if not rows:
        return "(no card matches)"
    head = ("id", "name", "type", "timings", "stats")
    widths = [max(_width(x) for x in col) for col in zip(head, *rows, strict=True)]
    lines = ["  ".join(_pad(v, w) for v, w in zip(r, widths, strict=True)).rstrip() for r in (head, *rows)]
    return "\n".join(lines)


def _width(text: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def _csv(cards, lang: str) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "name", "type", "pack", "copies", "timings", "traits", "stats", "text"])
    for c in cards:
        traits = ";".join(f"{k}={'|'.join(v)}" for k, v in c.traits.items())
        w.writerow([c.id, c.names.get(lang) or c.name, c.type_label.get(lang) or c.type, c.pack, c.copies,
                    ",".join(c.timings), traits, _stats(c).replace(" ", ";"), c.text(lang)])
    return buf.getvalue()


def _fields_text(index) -> str:
    lines = [f"Fields of {index.pack} (FIELD:VALUE; numbers also take = != < <= > >=):"]
    for name, f in index.fields.items():
        alias = [a for a, n in index.aliases.items() if n == name]
        head = f"  {name}" + (f" (also {', '.join(alias)})" if alias else "") + f"  [{f.kind}]  {f.help}"
        lines.append(head)
        if f.kind == "facet":
            values = sorted(set(f.values.values()))
            shown = ", ".join(values[:20]) + (f" ... ({len(values)} in all)" if len(values) > 20 else "")
            lines.append(f"      {shown}")
    lines.append("  sort:KEY, sort:-KEY (descending), limit:N")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ export


@main.command("export")
@click.argument("pack", required=False)
@click.option("--format", "fmt", type=click.Choice(["sqlite", "csv", "json"]), default="sqlite", show_default=True,
              help="sqlite: one database file (and a Datasette metadata file beside it); csv: a folder with one "
                   "file per table; json: one document.")
@click.option("--output", "-o", type=click.Path(), help="The file (sqlite, json) or folder (csv) to write.")
@click.option("--schema", "show_schema", is_flag=True, help="Print the tables and their columns, and exit.")
def export_cmd(pack: str | None, fmt: str, output: str | None, show_schema: bool) -> None:
    """Export a pack's cards as a relational database: SQLite, CSV or JSON.

    Tables: packs (the chain), cards, copies, traits, stats, abilities (source text and
    generated English and Japanese text), ability_uses (the macros, names, opcodes, verbs
    and targets of each ability), card_references and catalog_info. --schema prints them.
    The SQLite file opens in Datasette (pip install 'cardsmith[datasette]') with facets:

    \b
      datasette earth.db --metadata earth.metadata.json

    \b
    Examples:
      cardsmith export earth -o earth.db
      cardsmith export terraforming-mars --format csv -o tm-csv/
      cardsmith export earth-abundance --format json -o abundance.json
      cardsmith export --schema
    """
    from cardsmith.catalog.export import export, schema_text

    if show_schema:
        click.echo("\n".join(schema_text()).rstrip())
        return
    if not pack or not output:
        _fail("export needs PACK and --output (or --schema)")
    cat = _catalog(pack)
    path = Path(output)
    try:
        if fmt != "csv" and path.is_dir():
            _fail(f"'{output}' is a folder; --format {fmt} writes a file")
        if fmt != "csv":
            path.parent.mkdir(parents=True, exist_ok=True)
        files = export(cat, fmt, path)
    except OSError as e:
        _fail(f"cannot write '{output}': {e.strerror or e}")
    click.echo(f"{cat.id} {cat.version}: {len(cat.cards)} cards -> " + ", ".join(str(f) for f in files), err=True)


# ------------------------------------------------------------------------------ diff


@main.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True,
              help="text: for a terminal; markdown: for a pull-request comment or a changelog; json: as data.")
@click.option("--lang", type=click.Choice(["en", "ja", "both"]), default="en", show_default=True,
              help="The generated text shown before and after.")
@click.option("--fail-on", type=click.Choice(["behaviour", "any"]), default=None,
              help="Exit 1 when the game plays differently (behaviour: cards added, removed or compiling to "
                   "other bytecode, or rules that do), or on any change at all (any).")
def diff_cmd(old: str, new: str, fmt: str, lang: str, fail_on: str | None) -> None:
    """Compare two versions of a pack, card by card.

    OLD and NEW are each a pack folder, a built-in pack id, or PACK@GITREV: the pack as it
    was at a git revision, read from git objects (the work tree is not touched).

    For each card: added, removed, renamed (same id, or same name under a new id), the facts
    that changed, and whether its behaviour changed: the compiled bytecode is compared with
    source positions and player-facing labels left out, so reformatting or rewording (a card
    or a macro) that compiles to the same program is "text only". The generated text is
    shown before and after. Rule changes (parameters, resources, programs, macros) follow.

    Exit codes: 0 compared (1 with --fail-on when it applies), 2 a side cannot be read or
    does not compile.

    \b
    Examples:
      cardsmith diff earth@v0.1.0 earth                   # since a tag, in this repository
      cardsmith diff cards/earth@HEAD~1 cards/earth --format markdown > CHANGES.md
      cardsmith diff old-pack/ new-pack/ --fail-on behaviour
      cardsmith diff terraforming-mars@main terraforming-mars --format json
    """
    from cardsmith.catalog.diff import diff_catalogs
    from cardsmith.catalog.diff_render import RENDERERS
    from cardsmith.catalog.gitrev import SideError, open_side

    sides = []
    try:
        try:
            sides = [open_side(old), open_side(new)]
        except SideError as e:
            _fail(str(e))
        cats = [_side_catalog(s) for s in sides]
        d = diff_catalogs(cats[0], cats[1], old, new)
    finally:
        for s in sides:
            s.cleanup()
    langs = ("en", "ja") if lang == "both" else (lang,)
    click.echo(RENDERERS[fmt](d, langs), nl=fmt == "json")
    if (fail_on == "behaviour" and d.behaviour_changed) or (fail_on == "any" and d.changed):
        sys.exit(1)


def _side_catalog(side):
    from cardsmith.catalog.records import build_catalog

    res = compile_pack(str(side.folder), Diagnostics())
    if not res.ok:
        text = render_text(res.diagnostics.sorted())
        if side.temp is not None:
            text = text.replace(str(side.temp) + "/", side.label.rsplit("@", 1)[1] + ":")
        click.echo(text, err=True)
        _fail(f"{side.label}: {len(res.diagnostics.errors)} error(s); it does not compile, so it cannot be compared")
    return build_catalog(res)


# ------------------------------------------------------------------------------ site


@main.command("site")
@click.argument("pack")
@click.option("--output", "-o", required=True, type=click.Path(file_okay=False),
              help="The folder to write the site to.")
@click.option("--lang", type=LANG_CHOICE, default="en", show_default=True,
              help="The language of the card faces and page titles (pages show both languages' text).")
@click.option("--games", "-n", default=0, show_default=True, type=click.IntRange(0),
              help="Simulate this many seeded games and show each card's balance figures on its page (0: none).")
@click.option("--players", "-p", default=None, type=int,
              help="Players per simulated game (default: the pack's minimum).")
@click.option("--seed", "-s", default=0, show_default=True, type=int, help="Game i uses seed SEED+i.")
@click.option("--agents", "-a", default="random", show_default=True,
              help="Comma-separated agents, assigned to seats in turn.")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(0),
              help="Worker processes for the games (0: one per CPU).")
def site_cmd(pack: str, output: str, lang: str, games: int, players: int | None, seed: int, agents: str,
             jobs: int) -> None:
    """Build a static card browser: a folder that works from file:// and any static host.

    OUTPUT/index.html shows every card as its printed face (the card sheets' template; a
    pack's templates/card.html.j2 overrides it), with filters by type, timing, cost (or the
    pack's first number stat) and traits, and a search box that takes the `cardsmith query`
    language; bare words search names and generated English and Japanese text, ranked
    (MiniSearch, bundled; Japanese is split into character bigrams). OUTPUT/cards/ID.html
    shows a card's facts, generated text in both languages, ability source, bytecode, the
    cards that refer to it and, with --games, balance figures from a simulation.

    \b
    Examples:
      cardsmith site earth -o earth-site/ && xdg-open earth-site/index.html
      cardsmith site terraforming-mars -o tm-site/ --games 200 --jobs 2
      cardsmith site ./my-pack -o public/ --lang ja
    """
    from cardsmith.catalog.site import build_site
    from cardsmith.present.render import TemplateError

    t0 = time.perf_counter()
    cat = _catalog(pack)
    stats, note = None, ""
    if games:
        stats, note = _balance(cat, games, players, seed, agents, jobs)
    out = Path(output)
    try:
        pages = build_site(cat, out, pack_folder=resolve_pack_ref(pack), stats=stats, stats_note=note, lang=lang)
    except TemplateError as e:
        _fail(f"{e}", 1)
    except OSError as e:
        _fail(f"cannot write the site to '{output}': {e.strerror or e}")
    click.echo(f"{cat.id} {cat.version}: {len(cat.cards)} cards -> {pages[0]} and {len(pages) - 1} card pages "
               f"({time.perf_counter() - t0:.1f}s)", err=True)


def _balance(cat, games: int, players: int | None, seed: int, agents: str, jobs: int):
    """Per card, its balance figures from `games` seeded games; and a line saying how they were played."""
    import os

    from cardsmith.catalog.site import CardStats
    from cardsmith.runtime.balance import analyze
    from cardsmith.runtime.parallel import GameFault, run_games
    from cardsmith.runtime.vm import RuntimeFault

    names = agent_names(agents)
    n = player_count(cat.pack, players)
    try:
        results = run_games(cat.pack, games, n, seed, names, {}, None, jobs=jobs or os.cpu_count() or 1)
    except (RuntimeFault, GameFault) as e:
        _fail(str(e), 1)
    b = analyze(cat.pack, results, n, seed, names)
    stats = {}
    for c in b.cards:
        lo, hi = c.played.interval
        stats[c.id] = CardStats(c.played.count, c.played.rate, lo, hi, c.not_played.count, c.not_played.rate,
                                c.difference[0], games)
    note = (f"From {games} simulated games of {n} players ({', '.join(names)} agents, seeds {seed} to "
            f"{seed + games - 1}): how the player who played this card fared.")
    return stats, note
