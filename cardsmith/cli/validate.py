"""`cardsmith validate`: check packs, print diagnostics gcc-style, as JSON or as GitHub annotations."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from cardsmith.compiler.diagnostics import Diagnostics, Span, render_github, render_json, render_text
from cardsmith.compiler.packs import find_packs, resolve_pack_ref
from cardsmith.compiler.pipeline import compile_pack

from . import main

FORMATS = ("text", "json", "github")


def emit_diagnostics(diags: list, fmt: str) -> None:
    if fmt == "json":
        click.echo(render_json(diags))
    elif fmt == "github":
        if diags:
            click.echo(render_github(diags))
    elif diags:
        click.echo(render_text(diags), err=False)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: file:line:col with the source line and a caret; json: a list of objects; "
                   "github: GitHub Actions annotations.")
def validate(paths: tuple[str, ...], fmt: str) -> None:
    """Check card packs: YAML, schemas, effect-language syntax, names, types and timings.

    PATHS are pack folders, folders holding packs (searched recursively), files inside a pack,
    or built-in pack ids; the default is the current folder. Every problem of every pack is
    reported, not just the first. Exit code 0 when clean, 1 when there are errors.

    \b
    Examples:
      cardsmith validate cards/
      cardsmith validate my-expansion --format github
      cardsmith validate earth --format json
    """
    diags = Diagnostics()
    folders: list[Path] = []
    for p in paths or (".",):
        path = Path(p)
        if path.is_file():
            parent = next((q for q in [path.parent, *path.parents] if (q / "pack.yaml").is_file()), None)
            if parent is None:
                diags.error("E024", "this file is not inside a pack (no pack.yaml above it)", Span(str(path), 0, 0))
                continue
            folders.append(parent)
        elif path.is_dir():
            found = find_packs(path)
            if not found:
                diags.error("E024", "no pack.yaml in this folder or below it", Span(str(path), 0, 0))
            folders.extend(found)
        else:
            ref = resolve_pack_ref(p)
            if ref is None:
                diags.error("E024", f"no such file, folder or built-in pack: {p}", Span(str(p), 0, 0))
            else:
                folders.append(ref)
    seen: set[Path] = set()
    cards = 0
    for folder in folders:
        key = folder.resolve()
        if key in seen:
            continue
        seen.add(key)
        res = compile_pack(str(folder), Diagnostics())
        cards += res.cards_compiled
        diags.extend(res.diagnostics)
    unique = list(dict.fromkeys(diags.sorted()))
    emit_diagnostics(unique, fmt)
    errors = sum(1 for d in unique if str(d.severity) == "error")
    warnings = len(unique) - errors
    click.echo(f"{len(seen)} pack(s), {cards} card(s) checked: {errors} error(s), {warnings} warning(s)", err=True)
    sys.exit(1 if errors else 0)
