"""A language is data plus a short realiser: a toy third language, built here, says a pack's abilities.

The toy is a pseudo-language: its own templates (a dict instead of present/lang/CODE.yaml), its own
plural rule ('-i'), sentence end and clause joining, and pack words shown in «». The decisions are the
planner's, shared with English and Japanese: which clauses join, which nouns are plural, how a negated
comparison reads, what a macro call becomes.
"""

from __future__ import annotations

import shutil

import pytest

from cardsmith.compiler.pipeline import compile_pack
from cardsmith.present import describe
from cardsmith.present.describe import Describer
from cardsmith.present.text_ir import Word
from cardsmith.present.text_realise import Realiser, language_data
from helpers import ROOT

TOY = {
    "joins": {"and": [" + ", " + "]},
    "sentence-separator": " / ",
    "then": " ; ",
    "score-unit": {"glossary": "vp", "word": "pt"},
    "labels": {"requires": "NEED"},
    "templates": {
        "inline": "{body}",
        "as-written": "<{text}>",
        "amount.n": "{n} {what}",
        "card-noun.one": "card",
        "card-noun": "cards",
        "zone": "{owner}{name}",
        "owner.default.shared": "",
        "owner.default.player": "my ",
        "move": "take {amount} {source} into {dest}",
        "from.top": "off the top of {zone}",
        "dest": "{zone}",
        "gain": "get {amount}{per}",
        "pay.one": "give {items}",
        "costed": "{cost} => {body}",
        "score.equal": "win {points} like {value}",
        "value.resource": "my {name}",
        "may": "maybe {body}",
        "if": "when {cond} then {then}",
        "compare.resource.ge": "{what} {n}+",
        "compare.resource.lt": "{what} under {n}",
    },
}


class Toy(Realiser):
    """The whole of the toy's morphology."""

    code = "xx"
    marks_plural = True

    def __init__(self, voc, pack) -> None:
        super().__init__(voc, pack, data=TOY)

    def plural(self, word: str) -> str:
        return word + "-i"

    def sentence(self, text: str) -> str:
        return text + " !"

    def realise(self, value, form=None):
        text = super().realise(value, form)
        return f"«{text}»" if isinstance(value, Word) else text


@pytest.fixture
def toy(monkeypatch, tmp_path):
    monkeypatch.setitem(describe.LANGUAGES, "xx", Toy)
    pack = tmp_path / "toy"
    shutil.copytree(ROOT / "tests" / "fixtures" / "valid" / "minimal", pack)
    (pack / "cards.yaml").write_text((pack / "cards.yaml").read_text(encoding="utf-8") + """
  - {id: two, name: Two, type: plant, abilities: {green: "gain 1 soil, gain 2 coin"}}
  - {id: rich, name: Rich, type: plant, abilities: {green: "if soil >= 3: gain 1 coin"}}
  - {id: poor, name: Poor, type: plant, abilities: {green: "if not soil >= 3: gain 1 coin"}}
  - {id: maybe, name: Maybe, type: plant, abilities: {green: "may gain 1 soil", brown: "flip this"}}
""", encoding="utf-8")
    res = compile_pack(pack)
    assert res.ok, res.diagnostics.items
    return Describer(res, "xx")


def test_a_toy_language_says_statements_from_its_templates(toy):
    # a macro call without a glossary phrase reads as written, never as its body (the checker warns: W130)
    assert toy.ability("oak", "green") == "<draw 1> !"
    # a cost and its reward; number agreement from the planner, the plural from the toy's rule
    assert toy.ability("mint", "green") == "give 1 «soil» => get 2 «coin-i» !"
    # clauses that join run together in one sentence, joined the toy's way
    assert toy.ability("two", "green") == "get 1 «soil» + get 2 «coin-i» !"
    assert toy.ability("mint", "brown") == "win pt like my «coin» !"
    assert toy.ability("maybe", "green") == "maybe get 1 «soil» !"


def test_the_planner_decides_for_every_language(toy):
    # 'not soil >= 3' is planned as 'soil < 3' once; the toy only words it
    assert toy.ability("rich", "green") == "when «soil-i» 3+ then get 1 «coin» !"
    assert toy.ability("poor", "green") == "when «soil-i» under 3 then get 1 «coin» !"
    assert toy.fallbacks == []


def test_a_statement_the_language_has_no_template_for_is_a_clear_error(toy):
    with pytest.raises(KeyError, match="'xx' has no template for 'flip'"):
        toy.ability("maybe", "brown")


def test_the_shipped_languages_share_their_label_keys():
    assert set(language_data("en")["labels"]) == set(language_data("ja")["labels"])
