"""`compile`, `disasm`, `schema` and `packs`: the compiled form and what ships with cardsmith."""

from __future__ import annotations

import json
import sys

import click

from cardsmith.bytecode.opcodes import BYTECODE_VERSION
from cardsmith.compiler.diagnostics import Diagnostics, SourceCache
from cardsmith.compiler.packs import builtin_packs
from cardsmith.compiler.pipeline import compile_pack
from cardsmith.compiler.schema import SCHEMA_NAMES, schema

from . import main
from .options import compile_or_exit, output_target, write_output


@main.command("compile")
@click.argument("pack")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the bytecode here (default: stdout).")
def compile_cmd(pack: str, output: str | None) -> None:
    """Compile a pack to bytecode (versioned JSON).

    \b
    Examples:
      cardsmith compile earth -o earth.bytecode.json
      cardsmith compile ./my-pack
    """
    if output:
        output_target(output)
    res = compile_or_exit(pack)
    text = json.dumps(res.pack.to_json(), ensure_ascii=False, separators=(",", ":"))
    if output:
        write_output(output, text)
        click.echo(f"{res.pack.id} {res.pack.version}: {len(res.pack.cards)} cards, bytecode format "
                   f"{BYTECODE_VERSION} -> {output}", err=True)
    else:
        click.echo(text)


@main.command()
@click.argument("pack")
@click.argument("card", required=False)
def disasm(pack: str, card: str | None) -> None:
    """Print bytecode beside the source line it came from.

    With CARD (a card id), only that card's abilities, triggers and conditions; otherwise
    the rules' programs and every card.

    \b
    Examples:
      cardsmith disasm earth mountain-ridge
      cardsmith disasm earth | less
    """
    res = compile_or_exit(pack)
    p = res.pack
    if card:
        c = p.card(card)
        if c is None:
            from cardsmith.compiler.diagnostics import did_you_mean

            hint = did_you_mean(card, [x.id for x in p.cards])
            click.echo(f"cardsmith: pack '{p.id}' has no card '{card}'" + (f"; {hint}" if hint else ""), err=True)
            sys.exit(2)
        codes = list(p.card_codes(c))
    else:
        codes = list(p.codes())
    src = SourceCache()
    for label, code in codes:
        click.echo(f"== {label} ({len(code.ops)} instructions)")
        last = None
        for i, (ins, si) in enumerate(zip(code.ops, code.spans, strict=True)):
            span = p.span(si)
            line = ""
            if (span.file, span.line) != last:
                text = src.line(span.file, span.line)
                line = f"  ; {span.file}:{span.line}: {text.strip() if text else ''}"
                last = (span.file, span.line)
            operands = " ".join(json.dumps(a, ensure_ascii=False, separators=(",", ":")) for a in ins[1:])
            click.echo(f"{i:5d}  {ins[0]:<16}{operands}{line}")
        click.echo("")


@main.command("schema")
@click.argument("name", required=False, type=click.Choice(SCHEMA_NAMES))
def schema_cmd(name: str | None) -> None:
    """Print the JSON Schemas validation uses (pack, rules, cards, scenario).

    Editors complete and check card files that name a schema in a modeline:
    `# yaml-language-server: $schema=<path or URL of cards.schema.json>`.

    \b
    Examples:
      cardsmith schema cards > cards.schema.json
      cardsmith schema
    """
    if name:
        click.echo(json.dumps(schema(name), indent=2, ensure_ascii=False))
    else:
        click.echo(json.dumps({n: schema(n) for n in SCHEMA_NAMES}, indent=2, ensure_ascii=False))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def packs(as_json: bool) -> None:
    """List the built-in packs with their versions and card counts.

    \b
    Example:
      cardsmith packs
    """
    rows = []
    for pid, folder in builtin_packs().items():
        res = compile_pack(str(folder), Diagnostics())
        if res.pack:
            rows.append({"id": pid, "name": res.pack.name, "version": res.pack.version,
                         "extends": res.pack.chain[:-1], "cards": len(res.pack.cards),
                         "players": list(res.pack.players), "ok": True})
        else:
            rows.append({"id": pid, "name": pid, "version": "?", "extends": [], "cards": 0, "players": [],
                         "ok": False, "errors": len(res.diagnostics.errors)})
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for r in rows:
        status = "" if r["ok"] else f"  ({r['errors']} errors: run cardsmith validate {r['id']})"
        ext = f"  extends {', '.join(r['extends'])}" if r["extends"] else ""
        players = f"{r['players'][0]}-{r['players'][1]} players" if r["players"] else ""
        click.echo(f"{r['id']:<34} {r['version']:<8} {r['cards']:>4} cards  {players}{ext}{status}")
