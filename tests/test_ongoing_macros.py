"""A macro called at the top of an ongoing ability holds that ability's triggers and modifiers, as the
statements of a plain group there do (Terraforming Mars' Indentured Workers: 'discount the next card 8'),
and its call reads as its glossary phrase; called anywhere else, a trigger or modifier in it is E111."""

from __future__ import annotations

import shutil

from cardsmith.compiler.pipeline import compile_pack
from cardsmith.present.describe import Describer
from helpers import ROOT

RULES = """
timings:
  green: {kind: activated, types: [plant]}
  brown: {kind: end, types: [plant]}
  lasting: {kind: ongoing, types: [plant]}

macros:
  "draw $n": "move $n card from top of deck to hand"
  "thrift $n": "modify cost of card with kind herb by -$n, (when you gain soil: gain 1 coin)"

glossary:
  "thrift $n": {en: "herbs cost you $n less, and each soil you gain brings a coin",
                ja: "ハーブのコストが$n少なくなり、土を得るたびにコインを1枚得る"}
"""


def _pack(tmp_path, ability: str):
    pack = tmp_path / "ongoing"
    shutil.copytree(ROOT / "tests" / "fixtures" / "valid" / "minimal", pack)
    rules = pack / "rules.yaml"
    text = rules.read_text(encoding="utf-8")
    start, end = text.index("timings:"), text.index("game:")  # the minimal pack's timings and macros, replaced
    rules.write_text(text[:start] + RULES.lstrip() + "\n" + text[end:], encoding="utf-8")
    (pack / "cards.yaml").write_text(
        "cards:\n  - {id: miser, name: Miser, type: plant, abilities: {" + ability + "}}\n", encoding="utf-8")
    return compile_pack(pack)


def test_a_macro_at_the_top_of_an_ongoing_ability_keeps_its_triggers_and_modifiers(tmp_path):
    res = _pack(tmp_path, 'lasting: "thrift 2"')
    assert res.ok, res.diagnostics.items
    card = res.pack.card("miser")
    assert [(m.stat, m.amount) for m in card.modifiers] == [("cost", -2)]
    assert [(t.subject, t.verb, t.name) for t in card.triggers] == [("you", "gain", "soil")]
    assert Describer(res, "en").ability("miser", "lasting") == \
        "Herbs cost you 2 less, and each soil you gain brings a coin."


def test_the_same_macro_elsewhere_is_refused(tmp_path):
    res = _pack(tmp_path, 'green: "thrift 2"')
    assert not res.ok
    assert {d.code for d in res.diagnostics.errors} == {"E111"}
