"""`cardsmith coverage`: the language features each card uses, read from the compiled pack."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler import compile_pack
from cardsmith.present.coverage import CATEGORIES


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def earth() -> dict:
    res = run("coverage", "earth", "--format", "json")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_a_card_with_a_trigger_lists_the_trigger_and_its_timing(earth):
    # Frostneedle Spruce: "when you play a card with kind tree: gain 1 soil" (an ongoing ability).
    spruce = earth["cards"]["frostneedle-spruce"]
    assert spruce["trigger"] == ["when you play a card"]
    assert "ongoing" in spruce["timing"]
    assert {"when (trigger)", "gain", "filter: trait"} <= set(spruce["construct"])


def test_a_macro_call_lists_the_macro_and_what_it_expands_to(earth):
    # Lantern Birch's green ability is "draw 1"; Earth's rules define draw as a move from the top of the deck.
    birch = earth["cards"]["lantern-birch"]
    assert birch["macro"] == ["draw $n"]
    assert {"move cards", "top of a zone"} <= set(birch["construct"])
    assert {"TAKE", "PUT"} <= set(birch["opcode"])
    assert "trigger" not in birch


def test_counts_add_up_to_the_cards_that_use_each_feature(earth):
    assert set(earth["features"]) == set(CATEGORIES)
    for cat, counts in earth["features"].items():
        for feature, n in counts.items():
            users = [cid for cid, feats in earth["cards"].items() if feature in feats.get(cat, ())]
            assert n == len(users), (cat, feature)
        listed = {f for feats in earth["cards"].values() for f in feats.get(cat, ())}
        assert listed == set(counts), cat
    # Every card of the pack is listed, both faces of a double-sided card.
    assert list(earth["cards"]) == [c.id for c in compile_pack("earth").pack.cards]
    assert sum(earth["features"]["trigger"].values()) == sum(1 for c in earth["cards"].values() if "trigger" in c)


def test_text_and_markdown_give_the_same_counts(earth):
    text = run("coverage", "earth")
    md = run("coverage", "earth", "--format", "markdown")
    assert text.exit_code == 0 and md.exit_code == 0
    assert f"earth {earth['version']}: {len(earth['cards'])} cards" in text.stdout
    triggers = earth["features"]["trigger"]["when you play a card"]
    assert re.search(rf"when you play a card +{triggers}\n", text.stdout)
    assert f"| when you play a card | {triggers} |" in md.stdout
    assert "| draw $n |" in md.stdout


def test_one_card_lists_its_features_with_the_pack_counts(earth):
    res = run("coverage", "earth", "frostneedle-spruce", "--format", "json")
    assert res.exit_code == 0, res.output
    one = json.loads(res.stdout)
    assert one["card"] == "frostneedle-spruce"
    assert {cat: list(f) for cat, f in one["features"].items()} == earth["cards"]["frostneedle-spruce"]
    for cat, feats in one["features"].items():
        for f, n in feats.items():
            assert n == earth["features"][cat][f]
    text = run("coverage", "earth", "frostneedle-spruce").stdout
    assert f"trigger: when you play a card ({earth['features']['trigger']['when you play a card']})" in text


def test_unknown_card_is_one_line_and_exit_2():
    res = run("coverage", "earth", "frostneedle-sprce")
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "cardsmith: pack 'earth' has no card 'frostneedle-sprce'; did you mean 'frostneedle-spruce'?"]


def test_unknown_pack_is_one_line_and_exit_2():
    res = run("coverage", "eart")
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "no pack 'eart'" in lines[0] and "earth" in lines[0], res.output
    assert "Traceback" not in res.output


def test_help_has_an_example():
    res = run("coverage", "--help")
    assert res.exit_code == 0 and "Example" in res.output
