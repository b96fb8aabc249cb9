"""`cardsmith new pack` and `cardsmith new card`: a scaffold validates, its scenarios pass and it plays at once;
mistakes are refused with one line and exit code 2, and nothing half-made is left behind."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from cardsmith.cli import main, scaffold
from cardsmith.compiler.diagnostics import Diagnostics, render_text
from cardsmith.compiler.pipeline import compile_pack
from cardsmith.compiler.schema import SCHEMA_DIR, schema
from helpers import ROOT

MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDSMITH_CACHE", str(tmp_path / "cache"))


def compiled(folder: Path):
    res = compile_pack(str(folder), Diagnostics())
    assert res.ok, render_text(res.diagnostics.sorted())
    return res.pack


def modeline_target(file: Path) -> Path:
    m = MODELINE.match(file.read_text(encoding="utf-8").splitlines()[0])
    assert m, f"{file} has no yaml-language-server modeline"
    return (file.parent / m.group(1)).resolve()


def test_new_pack_validates_passes_its_scenarios_and_plays(tmp_path):
    res = run("new", "pack", "demo", "--dir", tmp_path)
    assert res.exit_code == 0, res.output
    pack = tmp_path / "demo"
    meta = yaml.safe_load((pack / "pack.yaml").read_text())
    assert (meta["id"], meta["version"]) == ("demo", "0.1.0")
    assert run("validate", pack).exit_code == 0
    tested = run("test", pack / "scenarios")
    assert tested.exit_code == 0 and "3 passed, 0 failed" in tested.output, tested.output
    played = run("simulate", pack, "--games", "3", "--seed", "1", "--json")
    assert played.exit_code == 0, played.output
    games = json.loads(played.stdout)["games"]
    assert len(games) == 3
    p = compiled(pack)
    assert [c.id for c in p.cards] == ["lucky-find"]
    assert p.scoring, "a playable game has a scoring step"


def test_a_scaffold_outside_a_checkout_carries_the_schemas_its_modelines_name(tmp_path):
    assert run("new", "pack", "demo", "--dir", tmp_path).exit_code == 0
    pack = tmp_path / "demo"
    expected = {"pack.yaml": "pack", "rules.yaml": "rules", "cards.yaml": "cards", "scenarios/basics.yaml": "scenario"}
    for rel, kind in expected.items():
        target = modeline_target(pack / rel)
        assert target == (pack / "schemas" / f"{kind}.schema.json").resolve(), rel
        assert json.loads(target.read_text()) == schema(kind)


def test_a_scaffold_inside_the_checkout_points_at_the_compilers_schemas(tmp_path, monkeypatch):
    monkeypatch.setattr(scaffold, "_checkout_root", lambda: tmp_path)
    assert run("new", "pack", "demo", "--dir", tmp_path).exit_code == 0
    pack = tmp_path / "demo"
    assert not (pack / "schemas").exists()
    assert modeline_target(pack / "cards.yaml") == SCHEMA_DIR / "cards.schema.json"
    assert modeline_target(pack / "scenarios" / "basics.yaml") == SCHEMA_DIR / "scenario.schema.json"


def test_an_expansion_of_earth_adds_a_resource_a_scoring_step_and_a_card(tmp_path):
    res = run("new", "pack", "earth-moonlight", "--extends", "earth", "--dir", tmp_path)
    assert res.exit_code == 0, res.output
    pack = tmp_path / "earth-moonlight"
    assert yaml.safe_load((pack / "pack.yaml").read_text())["extends"] == ["earth"]
    assert run("validate", pack).exit_code == 0
    tested = run("test", pack / "scenarios")
    assert tested.exit_code == 0 and "2 passed, 0 failed" in tested.output, tested.output
    p = compiled(pack)
    base = compiled(ROOT / "cards" / "earth")
    card = p.card("moonlight-card")
    assert card is not None and card.type == "flora" and card.pack == "earth-moonlight"
    assert len(p.cards) == len(base.cards) + 1
    assert "moonlight" in [s["id"] for s in p.scoring]


def test_an_expansion_of_a_pack_next_to_it(tmp_path):
    assert run("new", "pack", "base", "--dir", tmp_path).exit_code == 0
    res = run("new", "pack", "base-plus", "--extends", "base", "--dir", tmp_path)
    assert res.exit_code == 0, res.output
    assert compiled(tmp_path / "base-plus").chain == ["base", "base-plus"]
    tested = run("test", tmp_path / "base-plus" / "scenarios")
    assert tested.exit_code == 0 and "2 passed" in tested.output, tested.output


@pytest.mark.parametrize("args, message", [
    (("Demo",), "bad pack id 'Demo'"),
    (("my_game",), "bad pack id 'my_game'"),
    (("demo", "--extends", "eart"), "did you mean 'earth'"),
    (("demo", "--extends", "no-such-pack"), "no pack 'no-such-pack'"),
])
def test_bad_new_pack_requests_are_refused_and_create_nothing(tmp_path, args, message):
    res = run("new", "pack", *args, "--dir", tmp_path)
    assert res.exit_code == 2
    assert message in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "Traceback" not in res.output
    assert not list(tmp_path.glob("*demo*"))


def test_an_existing_folder_is_never_overwritten(tmp_path):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "notes.txt").write_text("mine")
    res = run("new", "pack", "demo", "--dir", tmp_path)
    assert res.exit_code == 2 and "already exists" in res.stderr
    assert [p.name for p in (tmp_path / "demo").iterdir()] == ["notes.txt"]
    assert run("new", "pack", "demo", "--dir", tmp_path / "nowhere").exit_code == 2


# ---------------------------------------------------------------------------- new card


@pytest.fixture()
def demo(tmp_path) -> Path:
    assert run("new", "pack", "demo", "--dir", tmp_path).exit_code == 0
    return tmp_path / "demo"


def test_new_card_is_appended_keeping_the_file_and_the_pack_validates(demo):
    before = (demo / "cards.yaml").read_text()
    res = run("new", "card", demo, "--name", "Golden Goose")
    assert res.exit_code == 0, res.output
    after = (demo / "cards.yaml").read_text()
    assert after.startswith(before), "comments and earlier cards stay as they were"
    card = yaml.safe_load(after)["cards"][-1]
    assert card == {"id": "golden-goose", "name": "Golden Goose", "stats": {"cost": 0, "vp": 0}}
    assert "type" not in card, "the file's default type is not repeated"
    c = compiled(demo).card("golden-goose")
    assert c is not None and c.type == "card"
    assert run("validate", demo).exit_code == 0


def test_new_card_ids_are_unique(demo):
    assert run("new", "card", demo).exit_code == 0
    assert run("new", "card", demo).exit_code == 0
    ids = [c["id"] for c in yaml.safe_load((demo / "cards.yaml").read_text())["cards"]]
    assert ids == ["lucky-find", "new-card", "new-card-2"]
    before = (demo / "cards.yaml").read_text()
    for args in (("--id", "lucky-find"), ("--name", "Lucky Find")):
        res = run("new", "card", demo, *args)
        assert res.exit_code == 2 and "already has a card 'lucky-find'" in res.stderr, res.output
    assert (demo / "cards.yaml").read_text() == before


@pytest.mark.parametrize("args, message", [
    (("--id", "Golden_Goose"), "bad card id 'Golden_Goose'"),
    (("--type", "crad"), "did you mean 'card'"),
    (("--file", "rules.yaml"), "--file rules.yaml"),
    (("--file", "../outside.yaml"), "--file ../outside.yaml"),
])
def test_bad_new_card_requests_are_refused(demo, args, message):
    before = (demo / "cards.yaml").read_text()
    res = run("new", "card", demo, *args)
    assert res.exit_code == 2 and message in res.stderr, res.output
    assert len(res.stderr.strip().splitlines()) == 1
    assert (demo / "cards.yaml").read_text() == before


def test_new_card_refuses_a_built_in_pack_and_an_id_of_the_pack_extended(tmp_path):
    res = run("new", "card", "earth")
    assert res.exit_code == 2 and "built-in pack" in res.stderr
    assert run("new", "pack", "earth-moonlight", "--extends", "earth", "--dir", tmp_path).exit_code == 0
    res = run("new", "card", tmp_path / "earth-moonlight", "--id", "mossback-oak")
    assert res.exit_code == 2 and "is a card of pack 'earth'" in res.stderr


def test_new_card_of_another_type_in_a_new_file(tmp_path):
    pack = tmp_path / "orchard"
    shutil.copytree(ROOT / "docs" / "example-pack", pack)
    res = run("new", "card", pack, "--name", "Stone Cistern")
    assert res.exit_code == 2 and "choose one with --file" in res.stderr
    res = run("new", "card", pack, "--name", "Stone Cistern", "--type", "well", "--file", "more/wells.yaml")
    assert res.exit_code == 0, res.output
    text = (pack / "more" / "wells.yaml").read_text()
    assert MODELINE.match(text.splitlines()[0])
    [card] = yaml.safe_load(text)["cards"]
    assert (card["id"], card["name"], card["type"]) == ("stone-cistern", "Stone Cistern", "well")
    assert compiled(pack).card("stone-cistern").type == "well"


def test_new_card_into_an_empty_flow_list(demo):
    (demo / "extra.yaml").write_text("# more cards\ndefaults: {type: card}\ncards: []\n")
    res = run("new", "card", demo, "--name", "Spare", "--file", "extra.yaml")
    assert res.exit_code == 0, res.output
    data = yaml.safe_load((demo / "extra.yaml").read_text())
    assert [c["id"] for c in data["cards"]] == ["spare"]
    assert (demo / "extra.yaml").read_text().startswith("# more cards\n")
    assert compiled(demo).card("spare") is not None


def test_new_commands_explain_themselves_with_examples():
    for args in (("new",), ("new", "pack"), ("new", "card")):
        res = run(*args, "--help")
        assert res.exit_code == 0 and "Example" in res.output, args
