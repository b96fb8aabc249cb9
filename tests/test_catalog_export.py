"""`cardsmith export`: the card database as SQLite, CSV and JSON for two built-in packs, checked against the
compiled pack; the SQLite file opened in Datasette shows the declared facets."""

from __future__ import annotations

import asyncio
import csv
import json
import sqlite3

import pytest
from catalog_sites import catalog
from click.testing import CliRunner
from conftest import ROOT, compiled_result

from cardsmith.catalog.export import TABLES, metadata_path
from cardsmith.catalog.export import export as write
from cardsmith.cli import main


def export(tmp_path, pack: str, fmt: str, name: str):
    out = tmp_path / name
    r = CliRunner().invoke(main, ["export", pack, "--format", fmt, "-o", str(out)])
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture(scope="module")
def abundance_db(tmp_path_factory):
    return export(tmp_path_factory.mktemp("db"), "earth-abundance", "sqlite", "abundance.db")  # by the command


def q(db, sql: str, *args):
    with sqlite3.connect(db) as con:
        return con.execute(sql, args).fetchall()


def test_sqlite_holds_every_card_and_the_chain(abundance_db):
    pack = compiled_result("earth-abundance").pack
    assert q(abundance_db, "select count(*) from cards")[0][0] == len(pack.cards)
    assert q(abundance_db, "select count(*) from copies")[0][0] == sum(c.copies for c in pack.cards)
    assert q(abundance_db, "select id, position, exported from packs order by position") == \
        [("earth", 1, 0), ("earth-abundance", 2, 1)]
    assert q(abundance_db, "select count(*) from cards where pack = 'earth-abundance'")[0][0] == \
        sum(1 for c in pack.cards if c.pack == "earth-abundance")
    trees = {r[0] for r in q(abundance_db, "select card_id from traits where trait = 'kind' and value = 'tree'")}
    assert trees == {c.id for c in pack.cards if "tree" in c.traits.get("kind", ())}
    assert q(abundance_db, "select value from stats where card_id = 'mossback-oak' and stat = 'cost'") == [(5,)]
    # every reference points at a row
    assert q(abundance_db, "pragma foreign_key_check") == []


def test_abilities_carry_source_generated_text_and_what_they_use(abundance_db):
    rows = q(abundance_db, "select timing, source, text_en, text_ja, source_file from abilities "
                           "where card_id = 'lantern-birch'")
    lines = (ROOT / "cards" / "earth" / "flora.yaml").read_text(encoding="utf-8").splitlines()
    start = lines.index("  - id: lantern-birch")
    line = next(i for i in range(start, len(lines)) if "draw 1" in lines[i]) + 1
    assert rows == [("green", "draw 1", "Draw 1 card.", rows[0][3], f"earth/flora.yaml:{line}")]
    assert rows[0][3] and rows[0][3] != rows[0][2]  # Japanese, generated
    uses = set(q(abundance_db, "select kind, name from ability_uses where card_id = 'lantern-birch'"))
    assert {("macro", "draw $n"), ("name", "hand"), ("opcode", "TAKE"), ("moves", "hand")} <= uses
    refs = q(abundance_db, "select count(*) from card_references where refers_to = 'mossback-oak'")[0][0]
    assert refs > 0


def test_csv_and_json_hold_the_same_rows(tmp_path, abundance_db):
    folder = tmp_path / "csv"
    write(catalog("earth-abundance"), "csv", folder)
    for t in TABLES:
        with (folder / f"{t.name}.csv").open(encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        assert rows[0] == [c.name for c in t.columns]
        assert len(rows) - 1 == q(abundance_db, f'select count(*) from "{t.name}"')[0][0]
    write(catalog("terraforming-mars"), "json", tmp_path / "tm.json")
    doc = json.loads((tmp_path / "tm.json").read_text(encoding="utf-8"))
    tm = compiled_result("terraforming-mars").pack
    assert [c["id"] for c in doc["cards"]] == [c.id for c in tm.cards]
    science = next(c for c in doc["cards"] if "science" in c["traits"].get("tag", []))
    assert science["abilities"] and all(a["text"]["ja"] for a in science["abilities"])


def test_terraforming_mars_exports_too(tmp_path):
    db = tmp_path / "tm.db"
    write(catalog("terraforming-mars"), "sqlite", db)
    tm = compiled_result("terraforming-mars").pack
    assert q(db, "select count(*) from cards")[0][0] == len(tm.cards)
    assert q(db, "select count(distinct card_id) from traits where trait = 'tag' and value = 'science'")[0][0] == \
        sum(1 for c in tm.cards if "science" in c.traits.get("tag", ()))


def test_the_schema_is_printed_from_the_same_declaration():
    r = CliRunner().invoke(main, ["export", "--schema"])
    assert r.exit_code == 0
    for t in TABLES:
        assert f"{t.name}: {t.description}" in r.output


def test_datasette_shows_the_facets(abundance_db):
    datasette_app = pytest.importorskip("datasette.app", reason="Datasette is the optional 'datasette' extra")
    meta = json.loads(metadata_path(abundance_db).read_text(encoding="utf-8"))
    ds = datasette_app.Datasette([str(abundance_db)], metadata=meta)

    async def get(path):
        return (await ds.client.get(path)).json()

    data = asyncio.run(get("/abundance/cards.json?_size=1"))
    assert set(data["facet_results"]) == {"type", "pack", "original", "copies"}
    packs = {f["value"]: f["count"] for f in data["facet_results"]["pack"]["results"]}
    assert packs["earth-abundance"] == q(abundance_db, "select count(*) from cards where pack='earth-abundance'")[0][0]
    uses = asyncio.run(get("/abundance/ability_uses.json?_size=1&kind=macro"))
    assert any(f["value"] == "draw $n" for f in uses["facet_results"]["name"]["results"])


def test_export_errors_are_one_line(tmp_path):
    r = CliRunner().invoke(main, ["export", "no-such-pack", "-o", str(tmp_path / "x.db")])
    assert r.exit_code == 2 and "no pack 'no-such-pack'" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["export", "earth", "-o", str(tmp_path)])
    assert r.exit_code == 2 and "is a folder" in r.output
