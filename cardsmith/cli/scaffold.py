"""`cardsmith new pack` and `cardsmith new card`: scaffolds that validate at once.

A new pack is the templates in cardsmith/scaffolds/ with its id and name filled in: a whole small
game (`pack/`), or an expansion of another pack (`expansion/`) whose example card is modelled on the
parent's most common card type. Each YAML file starts with a yaml-language-server modeline: inside a
cardsmith checkout it points at compiler/schemas/, elsewhere (a pip install) at copies of the schemas
written into the pack's schemas/ folder, which travel with the pack and need no network.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import unicodedata
from collections import Counter
from pathlib import Path

import click
import yaml

from cardsmith.bytecode.inputs import InputError, printable, read_input
from cardsmith.compiler.diagnostics import Diagnostics, did_you_mean, render_text
from cardsmith.compiler.packs import SKIPPED_DIRS, builtin_packs, card_files, load_chain, resolve_pack_ref
from cardsmith.compiler.pipeline import compile_pack
from cardsmith.compiler.schema import SCHEMA_DIR, schema, validate
from cardsmith.compiler.vocab import CARD_ATTRIBUTES, RESERVED, build_vocabulary
from cardsmith.compiler.yamlsrc import MAX_FILE_BYTES, load_yaml_text

from . import main

SCAFFOLDS = Path(__file__).resolve().parent.parent / "scaffolds"
PACK_ID = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")  # as pack.schema.json
CARD_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")  # as cards.schema.json
MODELINE = "# yaml-language-server: $schema="


def _fail(message: str) -> None:
    click.echo(f"cardsmith: {message}", err=True)
    sys.exit(2)


def _title(ident: str) -> str:
    return " ".join(w.capitalize() for w in ident.split("-"))


def _kebab(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def _schema_kind(rel: Path) -> str:
    if rel.parts[0] == "scenarios":
        return "scenario"
    return {"pack.yaml": "pack", "rules.yaml": "rules"}.get(rel.as_posix(), "cards")


def _checkout_root() -> Path | None:
    root = SCHEMA_DIR.parent.parent
    return root if (root / "pyproject.toml").is_file() else None


def schema_ref(file: Path, kind: str, pack: Path, final_pack: Path | None = None) -> str:
    """The modeline's schema path for `file` of the pack being written in `pack`, relative to the file.

    Inside the cardsmith checkout: the schemas the compiler uses. Elsewhere: a copy in <pack>/schemas/,
    written here if missing (`cardsmith schema KIND` prints the same text, to refresh it after an upgrade).
    `final_pack` is where `pack` will end up when it is written elsewhere first."""
    where = (final_pack or pack).resolve()
    root = _checkout_root()
    if root is not None and where.is_relative_to(root.resolve()):
        target = SCHEMA_DIR / f"{kind}.schema.json"
        return Path(os.path.relpath(target, (where / file.relative_to(pack)).parent)).as_posix()
    copy = pack / "schemas" / f"{kind}.schema.json"
    if not copy.exists():
        copy.parent.mkdir(exist_ok=True)
        copy.write_text(json.dumps(schema(kind), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return Path(os.path.relpath(copy, file.parent)).as_posix()


def _fill(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace("{{" + key + "}}", value)
    return template


@main.group()
def new() -> None:
    """Create a pack or a card from a template that validates at once.

    \b
    Examples:
      cardsmith new pack my-game
      cardsmith new pack earth-moonlight --extends earth --dir packs
      cardsmith new card my-game --name "Golden Goose"
    """


# ---------------------------------------------------------------------------- new pack


@new.command("pack")
@click.argument("name")
@click.option("--extends", "parent", metavar="PACK",
              help="Make an expansion of PACK: a built-in pack id, or a pack folder next to the new one.")
@click.option("--dir", "where", default=".", show_default=True, type=click.Path(file_okay=False),
              help="The folder to create the pack in.")
def new_pack(name: str, parent: str | None, where: str) -> None:
    """Create the pack NAME (its id, lowercase kebab-case) in the folder DIR/NAME.

    The pack has pack.yaml (version 0.1.0), rules.yaml, a card file with one example card,
    scenarios/basics.yaml, and, outside a cardsmith checkout, schemas/ with the JSON Schemas
    its modelines name. It validates at once, its scenarios pass, and `cardsmith simulate`
    plays it. A whole game has a turn structure, an end condition and scoring; an expansion
    (--extends) adds a resource, a scoring step for it and a card.

    \b
    Examples:
      cardsmith new pack my-game && cardsmith simulate my-game --games 20
      cardsmith new pack earth-moonlight --extends earth
      cardsmith new pack my-game-plus --extends my-game --dir packs
    """
    if not PACK_ID.fullmatch(name):
        _fail(f"bad pack id {printable(repr(name))}: a pack id is lowercase kebab-case starting with a letter, "
              "e.g. 'my-game'")
    base = Path(where)
    if not base.is_dir():
        _fail(f"no folder '{where}' to create the pack in")
    dest = base / name
    if dest.exists() or dest.is_symlink():
        _fail(f"'{dest}' already exists; choose another name, or another folder with --dir")
    values = {"id": name, "name": _title(name)}
    kind = "pack"
    if parent is not None:
        kind = "expansion"
        values.update(_expansion_values(name, parent, base))
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=base))
    try:
        for template in sorted((SCAFFOLDS / kind).rglob("*.tmpl")):
            rel = template.relative_to(SCAFFOLDS / kind).with_suffix("")
            out = tmp / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            ref = schema_ref(out, _schema_kind(rel), tmp, final_pack=dest)
            out.write_text(_fill(template.read_text(encoding="utf-8"), {**values, "schema": ref}),
                           encoding="utf-8")
        umask = os.umask(0o022)
        os.umask(umask)
        tmp.chmod(0o777 & ~umask)  # mkdtemp made it private; a pack folder is an ordinary folder
        os.rename(tmp, dest)  # fails if something appeared at dest meanwhile: never overwrite
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        _fail(f"could not create '{dest}': {e.strerror or e}")
    res = compile_pack(str(dest), Diagnostics())
    if not res.ok:  # a scaffold that does not validate is a bug in cardsmith, but say what is wrong
        click.echo(render_text(res.diagnostics.sorted()))
        click.echo(f"cardsmith: created {dest}, but it does not validate; please report this", err=True)
        sys.exit(1)
    files = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    click.echo(f"created {dest}: {', '.join(files)}")
    click.echo(f"{name} validates clean ({res.cards_compiled} card(s)). Next:")
    click.echo(f"  cardsmith test {dest / 'scenarios'}")
    click.echo(f"  cardsmith simulate {dest} --games 20")
    click.echo(f"  cardsmith new card {dest} --name \"Second Card\"")


def _expansion_values(name: str, parent: str, base: Path) -> dict[str, str]:
    """The expansion template's values, from the parent's vocabulary: a fresh resource name, and an example
    card of the parent's most common card type (its traits and stats copied from a card of that type)."""
    folder = _parent_folder(parent, base)
    res = compile_pack(str(folder), Diagnostics())
    if not res.ok:
        _fail(f"pack '{parent}' has errors; fix them first (cardsmith validate {folder})")
    pack = res.pack
    voc = res.compiler.voc
    taken = voc.all_names() | RESERVED | CARD_ATTRIBUTES | set(voc.scoring)
    stem = name.removeprefix(f"{pack.id}-") or name
    token = next(t for t in (stem, f"{stem}-token", *(f"{stem}-token-{i}" for i in range(2, 99))) if t not in taken)
    values = {"parent": pack.id, "token": token, "Token": _title(token),
              "players": str(max(2, pack.players[0]) if pack.players else 2)}
    types = Counter(c.type for c in pack.cards if c.type and not c.is_back)
    ctype = types.most_common(1)[0][0] if types else next(iter(voc.card_types), None)
    if ctype is None:
        _fail(f"pack '{parent}' declares no card types to make a card of")
    model = next((c for c in pack.cards if c.type == ctype and not c.is_back), None)
    ids = {c.id for c in pack.cards}
    card_id = next(i for i in (f"{token}-card", *(f"{token}-card-{n}" for n in range(2, 99))) if i not in ids)
    timing = _timing_for(voc, ctype)
    card = {"id": card_id, "name": _title(card_id), "type": ctype}
    if model is not None and model.traits:
        card["traits"] = {k: v[0] if len(v) == 1 else v for k, v in model.traits.items()}
    if model is not None and model.stats:
        card["stats"] = dict(model.stats)
    if timing:
        card["abilities"] = {timing: f"gain 1 {token}"}
    values["card"] = _card_yaml(card, indent=2).rstrip("\n")
    zone = _hand_zone(voc)
    values["card_scenario"] = ""
    if timing and zone:
        values["card_scenario"] = (
            f"  - name: {card['name']}'s {timing} ability gains 1 {token}\n"
            f"    players: {values['players']}\n"
            f"    state:\n      players:\n        - zones: {{{zone}: [{card_id}]}}\n"
            f"    do: \"activate {timing} ability of card in {zone}\"\n"
            f"    expect:\n      players:\n        - counters: {{{token}: 1}}\n")
    return values


def _parent_folder(parent: str, base: Path) -> Path:
    """A pack extends another by id, found next to it or among the built-in packs (compiler/packs.py)."""
    as_path = Path(parent)
    if (as_path / "pack.yaml").is_file() and not PACK_ID.fullmatch(parent):
        try:
            meta = _yaml_value(read_input(as_path / "pack.yaml", MAX_FILE_BYTES).decode("utf-8"))
        except (InputError, UnicodeDecodeError):
            meta = None
        pid = meta.get("id") if isinstance(meta, dict) else None
        if as_path.resolve().parent != base.resolve() or as_path.name != pid:
            _fail(f"an expansion names the pack it extends by id, found next to it or built in: create the "
                  f"expansion next to '{parent}' (--dir {as_path.resolve().parent}), with that pack in a "
                  f"folder named after its id")
        return as_path
    if not PACK_ID.fullmatch(parent):
        _fail(f"bad pack id '{parent}' for --extends: pack ids are lowercase kebab-case, e.g. 'my-game'")
    sibling = base / parent
    if (sibling / "pack.yaml").is_file():
        return sibling
    builtin = builtin_packs()
    if parent in builtin:
        return builtin[parent]
    hint = did_you_mean(parent, builtin)
    _fail(f"no pack '{parent}' in {base} nor among the built-in packs" + (f"; {hint}" if hint else ""))
    raise AssertionError  # _fail exits


def _timing_for(voc, ctype: str) -> str | None:
    """A timing a card of the type can have an ability in, one that runs when asked: on play, else activated."""
    for kind in ("on-play", "activated"):
        for tname, entry in voc.timings.items():
            types = entry.value.get("types")
            if entry.value.get("kind") == kind and (not types or ctype in types):
                return tname
    return None


def _hand_zone(voc) -> str | None:
    """A zone of each player that a scenario can list cards in: a hand, else a pile or a row."""
    for kind in ("hand", "pile", "row"):
        for zname, entry in voc.zones.items():
            if entry.value.get("owner", "player") == "player" and entry.value.get("kind") == kind:
                return zname
    return None


def _card_yaml(card: dict, indent: int) -> str:
    """One card as a block-list item, mappings inside it in flow style as the built-in packs write them."""
    lines = []
    for i, (key, value) in enumerate(card.items()):
        if key == "abilities":  # effect-language text in double quotes, as the built-in packs write it
            text = "{" + ", ".join(f"{t}: {json.dumps(v, ensure_ascii=False)}" for t, v in value.items()) + "}"
        else:
            text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10_000,
                                  sort_keys=False).strip()
            text = text.removesuffix("\n...").removesuffix("...").strip()
        lead = "- " if i == 0 else "  "
        lines.append(f"{' ' * indent}{lead}{key}: {text}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- new card


@new.command("card")
@click.argument("pack")
@click.option("--id", "card_id", help="The card's id (lowercase kebab-case); default: made from --name.")
@click.option("--name", help="The card's name; default: made from --id.")
@click.option("--type", "ctype", help="A card type of the pack; default: the card file's default type, "
                                      "else the pack's most common one.")
@click.option("--file", "file", help="The card file to add to, relative to the pack folder; default: the "
                                     "pack's only card file, else cards.yaml.")
def new_card(pack: str, card_id: str | None, name: str | None, ctype: str | None, file: str | None) -> None:
    """Append a new card to a card file of the pack in the folder PACK.

    The card gets an id unique in the pack (and in the packs it extends), a name, a type, and
    the stats cards of its type have, at 0, to fill in. Comments and layout of the file are
    kept: the card is added as text after the last card.

    \b
    Examples:
      cardsmith new card my-game --name "Golden Goose"
      cardsmith new card my-game --id golden-goose --name "Golden Goose" --type card
      cardsmith new card cards/earth --name "Moss Carpet" --type flora --file flora.yaml
    """
    folder = resolve_pack_ref(pack)
    if folder is None:
        _fail(f"no pack folder '{pack}' (a folder with a pack.yaml)")
    if not (Path(pack) / "pack.yaml").is_file() and Path(pack).name != "pack.yaml":
        _fail(f"'{pack}' is a built-in pack, part of the installed cardsmith; give the path of a pack folder")
    if card_id is not None and not CARD_ID.fullmatch(card_id):
        _fail(f"bad card id {printable(repr(card_id))}: card ids are lowercase kebab-case, e.g. 'golden-goose'")
    if name is not None and not name.strip():
        _fail("a card's name cannot be empty")
    if name is not None and printable(name) != name:
        _fail(f"a card's name cannot hold control characters: {printable(repr(name))}")
    diags = Diagnostics()
    chain = load_chain(folder, diags)
    if chain is None:
        _fail(f"pack '{pack}' does not load ({len(diags.errors)} error(s)); run `cardsmith validate {folder}` first")
    own = chain[-1]
    voc = build_vocabulary([p.rules_doc for p in chain if p.rules_doc], Diagnostics())
    target = _card_file(folder, file, pack)
    rel = target.relative_to(folder).as_posix()
    text = _read_card_file(target)
    data = _yaml_value(text)
    file_defaults = data.get("defaults") if isinstance(data, dict) else None
    if not isinstance(file_defaults, dict):
        file_defaults = {}

    # existing ids: the pack's own (never twice) and its parents' (a same id would replace their card)
    owner: dict[str, str] = {}
    for src in chain:
        for doc in src.card_docs:
            for raw in (doc.value or {}).get("cards") or []:
                for cid in (raw.get("id"), (raw.get("back") or {}).get("id")):
                    if cid:
                        owner[cid] = src.id
    for cid in _ids_in(text):
        owner.setdefault(cid, own.id)
    how = "" if card_id is not None else " (the id made from --name; give another name, or an --id)"
    if card_id is None and name and CARD_ID.fullmatch(_kebab(name)):
        card_id = _kebab(name)
    if card_id is None:  # a placeholder, numbered: new-card, new-card-2, ...
        card_id = next(i for i in ("new-card", *(f"new-card-{n}" for n in range(2, 10_000))) if i not in owner)
    elif card_id in owner:
        if owner[card_id] == own.id:
            _fail(f"pack '{own.id}' already has a card '{card_id}'{how}; card ids are unique in a pack")
        _fail(f"'{card_id}' is a card of pack '{owner[card_id]}', which '{own.id}' extends; a card with the same "
              "id would replace it (write that one by hand if you mean it), or choose another id")
    name = name.strip() if name else _title(card_id)

    ctype = _card_type(ctype, voc, file_defaults, own)
    stats: dict[str, int] = {}
    for src in chain:
        for doc in src.card_docs:
            defaults = (doc.value or {}).get("defaults") or {}
            for raw in (doc.value or {}).get("cards") or []:
                if raw.get("type", defaults.get("type")) == ctype:
                    for s in {**(defaults.get("stats") or {}), **(raw.get("stats") or {})}:
                        stats.setdefault(s, 0)
    for s in file_defaults.get("stats") or {}:
        stats.pop(s, None)
    card: dict = {"id": card_id, "name": name}
    if ctype != file_defaults.get("type"):
        card["type"] = ctype
    if stats:
        card["stats"] = stats
    new_text, line = _append(text, card, target, folder)
    check = Diagnostics()
    doc = load_yaml_text(new_text, rel, check)
    if doc is None or not validate(doc, "cards", check) or doc.value["cards"][-1].get("id") != card_id:
        _fail(f"could not add the card to {target} safely (nothing written); add it by hand:\n"
              + _card_yaml(card, indent=2))
    target.parent.mkdir(parents=True, exist_ok=True)
    # a private temporary file renamed over the card file: a link planted at a fixed name is never written through
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".new", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(new_text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    res = compile_pack(str(folder), Diagnostics())
    status = "the pack validates clean" if res.ok else (
        f"the pack has {len(res.diagnostics.errors)} error(s): run `cardsmith validate {folder}`")
    click.echo(f"added card '{card_id}' ({name}, type {ctype}) to {target}:{line}; {status}")


def _read_card_file(target: Path) -> str:
    """The card file's text ('' when there is none yet): a regular file inside the pack, never through a link."""
    if not target.exists() and not target.is_symlink():
        return ""
    try:
        return read_input(target, MAX_FILE_BYTES).decode("utf-8")
    except InputError as e:
        _fail(f"cannot add a card to {printable(str(target))}: {e.message}")
    except UnicodeDecodeError:
        _fail(f"{printable(str(target))} is not UTF-8; fix it first")
    raise AssertionError  # _fail exits


def _yaml_value(text: str):
    """The value of a YAML text read as the compiler reads it (bounded, every tag checked); None when it cannot
    be read."""
    doc = load_yaml_text(text, "<card file>", Diagnostics()) if text else None
    return doc.value if doc is not None else None


def _ids_in(text: str) -> list[str]:
    data = _yaml_value(text)
    cards = data.get("cards") if isinstance(data, dict) else None
    return [c["id"] for c in cards or [] if isinstance(c, dict) and isinstance(c.get("id"), str)]


def _only_comments(text: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines())


def _card_file(folder: Path, file: str | None, pack: str) -> Path:
    if file is not None:
        target = (folder / file).resolve()
        rel = Path(os.path.relpath(target, folder.resolve()))
        if rel.parts[0] == ".." or target.suffix != ".yaml" or rel.as_posix() in ("pack.yaml", "rules.yaml") \
                or rel.parts[0] in SKIPPED_DIRS:
            _fail(f"--file {file}: a card file is a *.yaml file inside the pack folder, other than pack.yaml, "
                  f"rules.yaml and the {' and '.join(SKIPPED_DIRS)} folders")
        return folder / rel
    files = card_files(folder)
    if len(files) == 1:
        return files[0]
    if (folder / "cards.yaml").is_file() or not files:
        return folder / "cards.yaml"
    names = ", ".join(p.relative_to(folder).as_posix() for p in files[:6]) + (", ..." if len(files) > 6 else "")
    _fail(f"pack '{pack}' has {len(files)} card files ({names}); choose one with --file")
    raise AssertionError  # _fail exits


def _card_type(ctype: str | None, voc, file_defaults: dict, own) -> str:
    if ctype is not None:
        if ctype not in voc.card_types:
            hint = did_you_mean(ctype, voc.card_types) or f"card types: {', '.join(voc.card_types) or 'none'}"
            _fail(f"unknown card type '{ctype}'; {hint}")
        return ctype
    if file_defaults.get("type") in voc.card_types:
        return file_defaults["type"]
    if not voc.card_types:
        _fail("the pack declares no card types (card-types in rules.yaml)")
    counts: Counter[str] = Counter()
    for doc in own.card_docs:
        defaults = (doc.value or {}).get("defaults") or {}
        counts.update(raw.get("type", defaults.get("type")) for raw in (doc.value or {}).get("cards") or [])
    known = [(t, n) for t, n in counts.most_common() if t in voc.card_types]
    return known[0][0] if known else next(iter(voc.card_types))


def _append(text: str, card: dict, target: Path, folder: Path) -> tuple[str, int]:
    """The file's text with the card added after its last card, and the line the card starts on."""
    if not _ids_in(text) and _only_comments(text):  # a new or empty file: a modeline, then the list
        head = text.rstrip() + "\n" if text.strip() else f"{MODELINE}{schema_ref(target, 'cards', folder)}\n"
        new = head + "cards:\n" + _card_yaml(card, indent=2)
        return new, new.count("\n", 0, new.index("  - id:")) + 1
    try:
        if _yaml_value(text) is None:  # the compiler's reader first: it refuses what would crash yaml.compose
            raise yaml.YAMLError
        root = yaml.compose(text)
    except yaml.YAMLError:
        _fail(f"{target} is not valid YAML; fix it first (cardsmith validate {folder})")
    seq = None
    if isinstance(root, yaml.MappingNode):
        seq = next((v for k, v in root.value if isinstance(k, yaml.ScalarNode) and k.value == "cards"), None)
    if not isinstance(seq, yaml.SequenceNode):
        _fail(f"{target} has no list of cards ('cards:') to add to")
    lines = text.splitlines(keepends=True)
    if seq.flow_style:
        if seq.value:
            _fail(f"{target} writes its cards as a flow list ([...]); add the card by hand")
        # cards: [] -> a block list
        before, after = text[:seq.start_mark.index], text[seq.end_mark.index:]
        block = _card_yaml(card, indent=2)
        new = before.rstrip(" ") + "\n" + block + after.lstrip(" \n") if after.strip() else before.rstrip(" ") + \
            "\n" + block
        return new, before.count("\n") + 2
    indent = seq.start_mark.column
    last = seq.value[-1]
    end = _last_mark(last)
    at = end.line + 1 if end.column > 0 else end.line  # the line after the last card's last value
    at = min(at, len(lines))
    if lines and not lines[-1].endswith("\n") and at == len(lines):
        lines[-1] += "\n"
    # keep the file's habit: a blank line between cards when there is one before the last card
    start = last.start_mark.line
    blank = start > 0 and not lines[start - 1].strip() and len(seq.value) > 1
    block = ("\n" if blank else "") + _card_yaml(card, indent=indent)
    lines.insert(at, block)
    return "".join(lines), at + 1 + (1 if blank else 0)


def _last_mark(node: yaml.Node) -> yaml.Mark:
    """Where the last value of a node ends (a block collection's own end mark lies past trailing comments)."""
    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.value and not node.flow_style:
        node = node.value[-1][1] if isinstance(node, yaml.MappingNode) else node.value[-1]
    return node.end_mark
