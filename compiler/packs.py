"""Find packs, follow `extends`, and load every file of a pack with positions.

A pack is a folder: pack.yaml, rules.yaml and card files (every other *.yaml in
the folder, except under scenarios/). Built-in packs live in the installed
`cards/` folder; a pack may also be given as a path.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import Diagnostics, Span, did_you_mean
from .yamlsrc import YamlDoc, load_yaml_file

BUILTIN_DIR = Path(__file__).resolve().parent.parent / "cards"
MAX_CHAIN = 16


def display_path(path: Path) -> str:
    """Paths relative to the working directory when inside it: shorter and clickable."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


@dataclass
class PackSource:
    id: str
    name: str
    version: str
    folder: Path
    extends: list[str]
    pack_doc: YamlDoc
    rules_doc: YamlDoc | None = None
    card_docs: list[YamlDoc] = field(default_factory=list)


def builtin_packs() -> dict[str, Path]:
    """Built-in pack ids to their folders, sorted by id."""
    out = {}
    if BUILTIN_DIR.is_dir():
        for p in sorted(BUILTIN_DIR.iterdir()):
            if (p / "pack.yaml").is_file():
                out[p.name] = p
    return out


def find_packs(root: Path) -> list[Path]:
    """Every pack folder at or under `root` (at most MAX_SEARCH_DEPTH levels below it), in path order;
    symbolic links are not followed."""
    if (root / "pack.yaml").is_file():
        return [root]
    found = walk(root, lambda rel: rel.name == "pack.yaml" and "scenarios" not in rel.parts,
                 max_depth=MAX_SEARCH_DEPTH)
    return sorted(p.parent for p in found.files)


def has_pack(folder: Path) -> bool:
    """Whether `folder` holds a pack.yaml (never raises: a name too long or a loop of links is no pack)."""
    try:
        return (folder / "pack.yaml").is_file()
    except (OSError, ValueError):
        return False


def resolve_pack_ref(ref: str) -> Path | None:
    """A built-in pack id, or a path to a pack folder (or to its pack.yaml)."""
    p = Path(ref)
    if p.name == "pack.yaml":
        p = p.parent
    if has_pack(p):
        return p
    return builtin_packs().get(ref)


SKIPPED_DIRS = ("scenarios", "templates")  # top-level folders of a pack that hold no card files
MAX_FOLDER_DEPTH = 32  # folders nested deeper than this in a pack are not read (a diagnostic says so)
MAX_SEARCH_DEPTH = 64  # nor packs and scenario files deeper than this below a folder searched for them


@dataclass
class Walk:
    """What walking a folder found: the files that match, in path order; symbolic links that would have
    matched or led to a folder (never followed); folders that could not be read, with why."""

    files: list[Path] = field(default_factory=list)
    links: list[Path] = field(default_factory=list)
    problems: list[tuple[Path, str]] = field(default_factory=list)


def walk(root: Path, wanted: Callable[[Path], bool], skip: Callable[[Path], bool] = lambda rel: False,
         problems: list[tuple[Path, str]] | None = None, max_depth: int = MAX_FOLDER_DEPTH) -> Walk:
    """The files under `root` whose path relative to it is `wanted`, without recursion (a folder a
    thousand levels deep costs a list, not the stack) and without following a symbolic link; folders
    whose relative path is `skip`ped are not entered. Special files (pipes, devices) are listed like
    regular ones: reading them is refused, with a diagnostic, where they are read."""
    out = Walk()
    todo = [(root, Path(), 0)]
    while todo:
        d, rel_d, depth = todo.pop()
        if depth > max_depth:
            out.problems.append((d, f"folders nested deeper than {max_depth} levels are not read"))
            continue
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError as e:
            if d == root and not root.is_dir():
                continue
            out.problems.append((d, f"cannot read this folder: {(e.strerror or str(e)).lower()}"))
            continue
        for e in entries:
            path, rel = Path(e.path), rel_d / e.name
            try:
                if e.is_symlink():
                    if wanted(rel) or e.is_dir():
                        out.links.append(path)
                elif e.is_dir(follow_symlinks=False):
                    if not skip(rel):
                        todo.append((path, rel, depth + 1))
                elif wanted(rel):
                    out.files.append(path)
            except OSError as err:
                out.problems.append((path, (err.strerror or str(err)).lower()))
    out.files.sort()
    out.links.sort()
    if problems is not None:
        problems.extend(out.problems)
    return out


def _is_card_file(rel: Path) -> bool:
    return rel.name.endswith(".yaml") and not (len(rel.parts) == 1 and rel.name in ("pack.yaml", "rules.yaml"))


def card_files(folder: Path, links: list[Path] | None = None,
               problems: list[tuple[Path, str]] | None = None) -> list[Path]:
    """The card files of a pack: every *.yaml under `folder` except pack.yaml, rules.yaml and the
    scenarios/ and templates/ folders, in path order.

    Symbolic links are never followed: a pack is read only from files inside its folder. Links
    that would have been read (a *.yaml file or a folder) are appended to `links` when given, and
    folders that could not be read to `problems`."""
    found = walk(folder, _is_card_file, lambda rel: len(rel.parts) == 1 and rel.name in SKIPPED_DIRS, problems)
    if links is not None:
        links.extend(found.links)
    return found.files


def _link_error(path: Path, folder: Path, diags: Diagnostics) -> None:
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    diags.error("E006", f"'{path.relative_to(folder).as_posix()}' is a symbolic link (to {target}); a pack is "
                "read only from files inside its folder", Span(display_path(path), 1, 1),
                hint="copy the file into the pack; to build on another pack, name it in `extends`")


# Reads one file of a pack and validates it against a schema ("pack", "rules", "cards"): the document, or
# None with diagnostics. load_chain takes another reader to serve unsaved editor buffers and unchanged files
# from memory (compiler/incremental.py); it must report exactly what read_document reports.
Reader = Callable[[Path, str, str, Diagnostics], "YamlDoc | None"]


def read_document(path: Path, kind: str, display: str, diags: Diagnostics) -> YamlDoc | None:
    from .schema import validate  # the JSON Schema validators load on first use: a cache hit never needs them

    doc = load_yaml_file(path, diags, display)
    return doc if doc is not None and validate(doc, kind, diags) else None


def _load_one(folder: Path, diags: Diagnostics, read: Reader = read_document) -> PackSource | None:
    for name in ("pack.yaml", "rules.yaml"):
        if (folder / name).is_symlink():
            _link_error(folder / name, folder, diags)
            return None
    pack_doc = read(folder / "pack.yaml", "pack", display_path(folder / "pack.yaml"), diags)
    if pack_doc is None:
        return None
    v = pack_doc.value
    src = PackSource(v["id"], v["name"], v["version"], folder, list(v.get("extends", [])), pack_doc)
    if folder.name != src.id and folder.parent.resolve() == BUILTIN_DIR:
        diags.error("E023", f"pack id '{src.id}' differs from its folder name '{folder.name}'",
                    pack_doc.span(("id",)))
    rules_path = folder / "rules.yaml"
    if rules_path.is_file():
        doc = read(rules_path, "rules", display_path(rules_path), diags)
        if doc is None:
            # Cards cannot be checked against rules we could not read: stop here, without a cascade.
            return None
        src.rules_doc = doc
    links: list[Path] = []
    problems: list[tuple[Path, str]] = []
    files = card_files(folder, links, problems)
    for path in links:
        _link_error(path, folder, diags)
    for path, why in problems:
        diags.error("E006", why, Span(display_path(path), 1, 1))
    for path in files:
        doc = read(path, "cards", display_path(path), diags)
        if doc is not None:
            src.card_docs.append(doc)
    return src


def load_chain(folder: Path, diags: Diagnostics, read: Reader = read_document) -> list[PackSource] | None:
    """The pack at `folder` and everything it extends, base packs first (each file read with `read`)."""
    loaded: dict[Path, PackSource] = {}
    order: list[PackSource] = []

    def visit(path: Path, stack: list[str], via: tuple[YamlDoc, tuple] | None) -> bool:
        key = path.resolve()
        if key in loaded:
            if loaded[key].id in stack:
                return _cycle(loaded[key], stack, via, diags)
            return True
        if len(stack) >= MAX_CHAIN:
            span = via[0].span(via[1]) if via else Span(str(path), 1, 1)
            diags.error("E021", f"'extends' goes deeper than {MAX_CHAIN} packs", span)
            return False
        src = _load_one(path, diags, read)
        if src is None:
            return False
        loaded[key] = src
        ok = True
        for i, parent in enumerate(src.extends):
            ppath = _find_parent(parent, path)
            if ppath is None:
                siblings = {p.name for p in path.parent.iterdir() if (p / "pack.yaml").is_file()}
                known = sorted(set(builtin_packs()) | siblings)

                diags.error("E020", f"'extends' names no pack '{parent}'", src.pack_doc.span(("extends", i)),
                            hint=did_you_mean(parent, known) or f"known packs: {', '.join(known)}")
                ok = False
                continue
            if ppath.is_symlink():
                diags.error("E020", f"'extends' names pack '{parent}' through a symbolic link ({display_path(ppath)} "
                            f"-> {os.readlink(ppath)}); packs are found only as real folders",
                            src.pack_doc.span(("extends", i)),
                            hint="move or copy the pack next to this one, or install it as a built-in pack")
                ok = False
                continue
            if parent in [*stack, src.id]:
                diags.error("E021", f"pack '{src.id}' extends itself through " + " -> ".join([*stack, src.id, parent]),
                            src.pack_doc.span(("extends", i)))
                ok = False
                continue
            ok = visit(ppath, [*stack, src.id], (src.pack_doc, ("extends", i))) and ok
        order.append(src)
        return ok

    ok = visit(folder, [], None)
    return order if ok else None


def _cycle(src: PackSource, stack: list[str], via, diags: Diagnostics) -> bool:
    span = via[0].span(via[1]) if via else src.pack_doc.span(())
    diags.error("E021", "packs extend each other in a cycle: " + " -> ".join([*stack, src.id]), span)
    return False


def _find_parent(pack_id: str, child: Path) -> Path | None:
    sibling = child.parent / pack_id
    if has_pack(sibling):
        return sibling
    return builtin_packs().get(pack_id)
