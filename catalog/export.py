"""The card database as tables: SQLite, CSV (one file per table) or JSON.

The schema is declared once, here (`TABLES`): the SQLite DDL, the CSV headers, the Datasette metadata
(descriptions and facets) and the documentation (`cardsmith export --schema`) all come from it.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cardsmith.bytecode.opcodes import BYTECODE_VERSION

from .records import Catalog

FORMATS = ("sqlite", "csv", "json")


def _cardsmith_version() -> str:
    """The installed cardsmith's version (read from its metadata: the tools package sits above this layer)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cardsmith")
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # TEXT | INTEGER
    description: str
    key: str = ""  # "primary", or "table.column" for a reference


@dataclass(frozen=True)
class Table:
    name: str
    description: str
    columns: tuple[Column, ...]
    facets: tuple[str, ...] = ()
    primary: tuple[str, ...] = ()

    def ddl(self) -> str:
        cols = []
        for c in self.columns:
            line = f'"{c.name}" {c.type}'
            if c.key == "primary":
                line += " PRIMARY KEY"
            elif c.key:
                table, col = c.key.split(".")
                line += f' REFERENCES "{table}"("{col}")'
            cols.append(line)
        if self.primary:
            cols.append("PRIMARY KEY (" + ", ".join(f'"{c}"' for c in self.primary) + ")")
        return f'CREATE TABLE "{self.name}" (\n  ' + ",\n  ".join(cols) + "\n)"


def _c(name: str, type_: str, description: str, key: str = "") -> Column:
    return Column(name, type_, description, key)


TABLES: tuple[Table, ...] = (
    Table("packs", "The pack and every pack it extends, base packs first.", (
        _c("id", "TEXT", "pack id", "primary"), _c("name", "TEXT", "pack name"),
        _c("version", "TEXT", "pack version"), _c("position", "INTEGER", "place in the chain, 1 = the base pack"),
        _c("exported", "INTEGER", "1 for the pack that was exported (the end of the chain)")),
        facets=("exported",)),
    Table("cards", "One row per card (each side of a double-sided card is a card).", (
        _c("id", "TEXT", "card id", "primary"), _c("name", "TEXT", "name as written in the card file"),
        _c("name_en", "TEXT", "name printed in English"), _c("name_ja", "TEXT", "name printed in Japanese"),
        _c("type", "TEXT", "card type id"), _c("type_en", "TEXT", "card type in English"),
        _c("type_ja", "TEXT", "card type in Japanese"),
        _c("pack", "TEXT", "the pack that defines the card", "packs.id"),
        _c("number", "TEXT", "printed number, if any"), _c("copies", "INTEGER", "copies in the game"),
        _c("original", "INTEGER", "1 for an original card, 0 for one whose facts are published"),
        _c("back", "TEXT", "the other side of a double-sided card", "cards.id"),
        _c("is_back", "INTEGER", "1 for the back side of a double-sided card"),
        _c("timings", "TEXT", "the timings of its abilities, comma-separated"),
        _c("text_en", "TEXT", "generated English text of all its abilities"),
        _c("text_ja", "TEXT", "generated Japanese text of all its abilities"),
        _c("source_file", "TEXT", "file:line of the card in its pack")),
        facets=("type", "pack", "original", "copies")),
    Table("copies", "One row per physical copy of a card: count(*) is the number of cards in the game.", (
        _c("card_id", "TEXT", "card id", "cards.id"), _c("copy", "INTEGER", "1 .. copies")),
        primary=("card_id", "copy")),
    Table("traits", "One row per trait value of a card.", (
        _c("card_id", "TEXT", "card id", "cards.id"), _c("trait", "TEXT", "trait name"),
        _c("value", "TEXT", "trait value"), _c("value_en", "TEXT", "the value in English"),
        _c("value_ja", "TEXT", "the value in Japanese")),
        facets=("trait", "value"), primary=("card_id", "trait", "value")),
    Table("stats", "One row per stat of a card.", (
        _c("card_id", "TEXT", "card id", "cards.id"), _c("stat", "TEXT", "stat name"),
        _c("value", "INTEGER", "stat value")),
        facets=("stat",), primary=("card_id", "stat")),
    Table("abilities", "One row per ability of a card (its play requirement has timing 'requires').", (
        _c("card_id", "TEXT", "card id", "cards.id"), _c("position", "INTEGER", "order on the card, from 1"),
        _c("timing", "TEXT", "timing id"), _c("kind", "TEXT", "kind of timing (activated, on-play, ongoing ...)"),
        _c("source", "TEXT", "effect-language source as written"),
        _c("source_file", "TEXT", "file:line of the source"),
        _c("text_en", "TEXT", "generated English text"), _c("text_ja", "TEXT", "generated Japanese text")),
        facets=("timing", "kind"), primary=("card_id", "position")),
    Table("ability_uses", "What each ability uses, read from the compiled pack: the macros it expands, the "
          "vocabulary names it mentions (kind 'name': resources, zones, pieces, stats), the opcodes of its "
          "bytecode, what its statements act on (kind = the verb: gains, pays, places ...) and the players it "
          "reaches (kind 'target').", (
        _c("card_id", "TEXT", "card id", "cards.id"), _c("position", "INTEGER", "the ability (abilities.position)"),
        _c("timing", "TEXT", "timing id"), _c("kind", "TEXT", "macro, name, opcode, target, or a verb"),
        _c("name", "TEXT", "what is used")),
        facets=("kind", "name", "timing")),
    Table("card_references", "Card A refers to card B when a query in A's abilities has type or trait filters "
          "that B passes ('card in tableau with tag plant' refers to every plant card).", (
        _c("card_id", "TEXT", "the referring card", "cards.id"), _c("refers_to", "TEXT", "the card it selects",
                                                                    "cards.id"),
        _c("via", "TEXT", "the filters that select it")),
        facets=("via",)),
    Table("catalog_info", "What produced this database.", (
        _c("key", "TEXT", "name", "primary"), _c("value", "TEXT", "value"))),
)


def rows(cat: Catalog) -> dict[str, list[tuple]]:
    """Every table's rows, in the order of its columns."""
    out: dict[str, list[tuple]] = {t.name: [] for t in TABLES}
    top = cat.chain[-1]["id"] if cat.chain else cat.id
    for i, p in enumerate(cat.chain, 1):
        out["packs"].append((p["id"], p["name"], p["version"], i, int(p["id"] == top)))
    for c in cat.cards:
        out["cards"].append((c.id, c.name, c.names.get("en"), c.names.get("ja"), c.type, c.type_label.get("en"),
                             c.type_label.get("ja"), c.pack, c.number, c.copies, int(c.original), c.back,
                             int(c.is_back), ",".join(c.timings), c.text("en"), c.text("ja"), c.where))
        out["copies"] += [(c.id, k) for k in range(1, c.copies + 1)]
        for trait, values in c.traits.items():
            for v in dict.fromkeys(values):
                out["traits"].append((c.id, trait, v, c.trait_labels.get("en", {}).get(v),
                                      c.trait_labels.get("ja", {}).get(v)))
        out["stats"] += [(c.id, k, v) for k, v in c.stats.items()]
        for pos, a in enumerate(c.abilities, 1):
            out["abilities"].append((c.id, pos, a.timing, a.kind, a.source, a.where, a.text.get("en"),
                                     a.text.get("ja")))
            uses = [("macro", m) for m in a.macros] + [("name", n) for n in a.names] + \
                   [("opcode", o) for o in a.opcodes] + [("target", t) for t in a.targets] + \
                   [(verb, n) for verb, names in a.effects.items() for n in names]
            out["ability_uses"] += [(c.id, pos, a.timing, kind, name) for kind, name in uses]
        out["card_references"] += [(c.id, target, via) for target, via in c.refers_to]
    out["catalog_info"] = [("pack", cat.id), ("version", cat.version), ("cardsmith", _cardsmith_version()),
                           ("bytecode_format", str(BYTECODE_VERSION))]
    return out


# ------------------------------------------------------------------------------ writers


def write_sqlite(cat: Catalog, path: Path) -> list[Path]:
    """The database at `path` (replaced if it exists) and its Datasette metadata beside it."""
    if path.exists():
        path.unlink()
    con = sqlite3.connect(path)
    try:
        with con:
            for t in TABLES:
                con.execute(t.ddl())
            data = rows(cat)
            for t in TABLES:
                marks = ", ".join("?" for _ in t.columns)
                con.executemany(f'INSERT INTO "{t.name}" VALUES ({marks})', data[t.name])
            for t in TABLES:
                for c in t.columns:
                    if c.key and c.key != "primary":
                        con.execute(f'CREATE INDEX "{t.name}_{c.name}" ON "{t.name}"("{c.name}")')
    finally:
        con.close()
    meta = metadata_path(path)
    meta.write_text(json.dumps(datasette_metadata(cat, path.stem), indent=2, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    return [path, meta]


def metadata_path(db: Path) -> Path:
    return db.with_name(db.stem + ".metadata.json")


def datasette_metadata(cat: Catalog, database: str) -> dict:
    """Datasette's metadata: titles, the description of every table and column, and facets shown by default."""
    tables = {}
    for t in TABLES:
        entry: dict = {"description": t.description, "columns": {c.name: c.description for c in t.columns}}
        if t.facets:
            entry["facets"] = list(t.facets)
        tables[t.name] = entry
    title = f"{cat.name.get('en', cat.id)} {cat.version}"
    return {"title": f"cardsmith: {title}",
            "description": f"The cards of {title}, exported by cardsmith {_cardsmith_version()}.",
            "databases": {database: {"title": title, "tables": tables}}}


def write_csv(cat: Catalog, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    data = rows(cat)
    written = []
    for t in TABLES:
        path = folder / f"{t.name}.csv"
        with path.open("w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([c.name for c in t.columns])
            w.writerows(["" if v is None else v for v in r] for r in data[t.name])
        written.append(path)
    return written


def write_json(cat: Catalog, path: Path) -> list[Path]:
    doc = {"format": "cardsmith-catalog", "cardsmith": _cardsmith_version(), "bytecode_format": BYTECODE_VERSION,
           **cat.to_json()}
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return [path]


WRITERS = {"sqlite": write_sqlite, "csv": write_csv, "json": write_json}


def export(cat: Catalog, fmt: str, path: Path) -> list[Path]:
    return WRITERS[fmt](cat, Path(path))


def schema_text() -> Iterator[str]:
    """The schema as text: every table, its description and columns (for `--schema` and the docs)."""
    for t in TABLES:
        yield f"{t.name}: {t.description}"
        width = max(len(c.name) for c in t.columns)
        for c in t.columns:
            ref = "" if not c.key else " (key)" if c.key == "primary" else f" (-> {c.key})"
            yield f"  {c.name:<{width}}  {c.type:<7}  {c.description}{ref}"
        if t.facets:
            yield f"  Datasette facets: {', '.join(t.facets)}"
        yield ""
