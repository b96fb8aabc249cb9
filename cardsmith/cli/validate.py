"""`cardsmith validate`: check packs, print diagnostics gcc-style, as JSON, as GitHub annotations or as SARIF."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from cardsmith import __version__
from cardsmith.compiler.diagnostics import (
    Diagnostic,
    Diagnostics,
    Span,
    render_github,
    render_json,
    render_sarif,
    render_text,
    resolved,
)
from cardsmith.compiler.packs import find_packs, has_pack, resolve_pack_ref

from . import main

FORMATS = ("text", "json", "github", "sarif")
# Files a whole pack depends on: naming one reports on the whole pack, not on the file alone.
PACK_WIDE_FILES = ("pack.yaml", "rules.yaml")


def repo_root(start: Path | None = None) -> Path:
    """The git work tree holding `start` (the working directory), else `start` itself: SARIF's URIs are relative
    to it, so that code scanning finds the files."""
    here = (start or Path.cwd()).resolve()
    return next((p for p in [here, *here.parents] if (p / ".git").exists()), here)


def emit_diagnostics(diags: list, fmt: str) -> None:
    if fmt == "json":
        click.echo(render_json(diags))
    elif fmt == "sarif":
        click.echo(render_sarif(diags, repo_root(), __version__))
    elif fmt == "github":
        if diags:
            click.echo(render_github(diags))
    elif diags:
        click.echo(render_text(diags), err=False)


def _kind(path: Path) -> str | None:
    """'file', 'folder' or None (nothing there, or a name the system refuses: too long, a loop of links)."""
    try:
        return "file" if path.is_file() else "folder" if path.is_dir() else None
    except (OSError, ValueError):
        return None


def _in_files(d: Diagnostic, files: set[Path]) -> bool:
    return any(resolved(Path(s.file)) in files for s in (d.span, *(s for _, s in d.notes)))


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: file:line:col with the source line and a caret; json: a list of objects; "
                   "github: GitHub Actions annotations; sarif: a SARIF 2.1.0 log for code scanning.")
@click.option("--changed-since", "rev", metavar="REV",
              help="Report only findings on lines changed since the git revision REV (a branch, tag or commit; "
                   "against the working tree; untracked files count as changed in full).")
@click.option("--no-cache", is_flag=True,
              help="Compile from source and leave the compile cache alone (location: $CARDSMITH_CACHE, else "
                   "~/.cache/cardsmith; safe to delete). A pack that did not change is otherwise checked from its "
                   "cached compile: the same findings, without compiling again.")
def validate(paths: tuple[str, ...], fmt: str, rev: str | None, no_cache: bool) -> None:
    """Check card packs: YAML, schemas, effect-language syntax, names, types and timings.

    PATHS are pack folders, folders holding packs (searched recursively), files inside a pack,
    or built-in pack ids; the default is the current folder. Every problem of every pack is
    reported, not just the first. A file is checked with its whole pack, but only the findings
    in that file are reported (for pack.yaml and rules.yaml: those of the whole pack), as a
    pre-commit hook wants. Exit code 0 when clean, 1 when a reported finding is an error.

    \b
    Examples:
      cardsmith validate cards/
      cardsmith validate my-expansion --format github
      cardsmith validate earth --format json
      cardsmith validate cards/earth/flora.yaml cards/earth/fauna.yaml
      cardsmith validate cards --format sarif > cards.sarif
      cardsmith validate cards --changed-since origin/main
    """
    history = None
    if rev is not None:  # a bad revision is a usage error: say so before any work
        from .git_changes import GitError, resolve_revision

        first = Path(paths[0]) if paths else Path.cwd()
        try:  # the repository of the first path (or of the working directory for a built-in pack id)
            history = resolve_revision(rev, (first if first.is_dir() else first.parent) if first.exists() else None)
        except GitError as e:
            click.echo(f"cardsmith: {e}", err=True)
            sys.exit(2)
    diags = Diagnostics()
    folders: list[tuple[Path, Path | None]] = []  # a pack folder, and the file named in it (None: the whole pack)
    for p in paths or (".",):
        path = Path(p)
        kind = _kind(path)
        if kind == "file":
            parent = next((q for q in [path.parent, *path.parents] if has_pack(q)), None)
            if parent is None:
                diags.error("E024", "this file is not inside a pack (no pack.yaml above it)", Span(str(path), 1, 1))
                continue
            pack_wide = path.parent == parent and path.name in PACK_WIDE_FILES
            folders.append((parent, None if pack_wide else path.resolve()))
        elif kind == "folder":
            found = find_packs(path)
            if not found:
                diags.error("E024", "no pack.yaml in this folder or below it", Span(str(path), 1, 1))
            folders.extend((f, None) for f in found)
        else:
            ref = resolve_pack_ref(p)
            if ref is None:
                diags.error("E024", f"no such file, folder or built-in pack: {p}", Span(str(p), 1, 1))
            else:
                folders.append((ref, None))
    # A pack named whole is reported whole; a pack named only through files, on those files.
    named: dict[Path, set[Path] | None] = {}
    for folder, file in folders:
        key = folder.resolve()
        if key in named and named[key] is None:
            continue
        named[key] = None if file is None else {*named.get(key, set()), file}
    seen: set[Path] = set()
    cards = 0
    for folder, _file in folders:
        key = folder.resolve()
        if key in seen:
            continue
        seen.add(key)
        if no_cache:
            from cardsmith.compiler.pipeline import compile_pack

            res = compile_pack(str(folder), Diagnostics())
        else:
            from cardsmith.compiler.cache import compile_cached

            res = compile_cached(str(folder), Diagnostics())
        cards += res.cards_compiled
        files = named[key]
        diags.items.extend(d for d in res.diagnostics if files is None or _in_files(d, files))
    unique = list(dict.fromkeys(diags.sorted()))
    scope = ""
    if history is not None:
        from .git_changes import GitError, changed_since

        try:
            changes = changed_since(*history, {s.file for d in unique for s in (d.span, *(s for _, s in d.notes))})
        except GitError as e:
            click.echo(f"cardsmith: {e}", err=True)
            sys.exit(2)
        hidden = len(unique)
        unique = [d for d in unique if changes.reports(d)]
        hidden -= len(unique)
        scope = f" on lines changed since {rev}" + (f" ({hidden} more on unchanged lines)" if hidden else "")
    emit_diagnostics(unique, fmt)
    errors = sum(1 for d in unique if str(d.severity) == "error")
    warnings = len(unique) - errors
    click.echo(f"{len(seen)} pack(s), {cards} card(s) checked: {errors} error(s), {warnings} warning(s){scope}",
               err=True)
    sys.exit(1 if errors else 0)
