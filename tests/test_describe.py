"""Generated card text: every ability of every built-in pack reads in English and Japanese, names what
it touches, and known Earth cards read exactly as written here."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler import ast as A
from cardsmith.compiler.packs import builtin_packs
from cardsmith.compiler.pipeline import compile_pack
from cardsmith.present.describe import LANGS, Describer, english_plural_marks, third_person
from cardsmith.present.text_japanese import conjugate
from helpers import ROOT

PACKS = sorted(builtin_packs())


@pytest.fixture(scope="module")
def compiled():
    cache = {}

    def get(ref):
        if ref not in cache:
            res = compile_pack(ref)
            assert res.ok, res.diagnostics.items[:3]
            cache[ref] = res
        return cache[ref]

    return get


def _resources_touched(node, describer, out: set):
    """Resources gained, lost or paid by statements the text describes itself (card text never says a
    macro's body: a call reads as its glossary phrase, or as written)."""
    if isinstance(node, tuple):
        for n in node:
            _resources_touched(n, describer, out)
        return
    if not isinstance(node, A.Node):
        return
    if isinstance(node, A.Group) and node.macro is not None:
        return
    if isinstance(node, A.Gain | A.Lose):
        out.add(node.resource)
    if isinstance(node, A.Pay):
        out.update(r for _, r in node.items)
    for f in getattr(node, "__dataclass_fields__", {}):
        if f != "span":
            v = getattr(node, f)
            if isinstance(v, tuple | A.Node):
                _resources_touched(v, describer, out)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("pack", PACKS)
def test_every_ability_of_every_builtin_pack_describes(compiled, pack, lang):
    res = compiled(pack)
    d = Describer(res, lang)
    described = 0
    for card in res.pack.cards:
        for a in d.card(card):
            assert a.text.strip(), f"{card.id} {a.timing}: empty text"
            node = res.asts[f"{card.id} {a.timing}"]
            touched: set[str] = set()
            _resources_touched(node, d, touched)
            for r in touched:
                if d.lex.is_internal(r):  # the rules' bookkeeping: said in players' words, or not at all
                    continue
                word = d.lex.term(r, sec="resources")
                plural = d.lex.term(r, plural=True, sec="resources")
                assert word in a.text or plural in a.text, f"{card.id} {a.timing} ({lang}): '{a.text}' lacks {r}"
            if lang == "ja":
                assert any(ord(ch) > 0x3000 for ch in a.text), f"{card.id} {a.timing}: no Japanese in '{a.text}'"
            described += 1
    assert d.fallbacks == [], f"nodes describe does not know: {d.fallbacks[:3]}"
    assert described > 0 or not any(card.abilities or card.conditions for card in res.pack.cards)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("pack", PACKS)
def test_rules_programs_describe(compiled, pack, lang):
    res = compiled(pack)
    d = Describer(res, lang, mode="rules")
    for name in res.asts:
        if not name.startswith(tuple(f"{c.id} " for c in res.pack.cards)):
            assert d.code(name), name
    for sig in {m.signature for ms in res.compiler.macros.values() for m in ms}:
        assert d.macro_body(sig) is not None
    assert d.fallbacks == []


EARTH = {
    ("mossback-oak", "yellow"): ("Place 1 growth in your tableau.", "自分の場に成長コマを1個置く。"),
    ("copperbark-pine", "red"): ("Gain 2 soil.", "土を2個獲得する。"),
    ("lantern-birch", "green"): ("Draw 1 card.", "カードを1枚引く。"),
    ("bitterroot-sorrel", "red"): ("Compost 1 card from your hand: gain 3 soil.",
                                   "手札からカードを1枚堆肥にすることで、土を3個獲得する。"),
    ("hearthsage", "green"): ("Pay 1 soil: draw 2 cards.", "土を1個支払うことで、カードを2枚引く。"),
    ("thunder-cedar", "brown"): ("Score 1 VP per 2 tree cards in your tableau.",
                                 "自分の場の木のカード2枚につき、1VPを獲得する。"),
    ("fernshadow-gully", "ongoing"): ("The cost of herb cards is 1 lower.", "ハーブのカードのコストは1少なくなる。"),
    ("frostneedle-spruce", "ongoing"): ("When you play a tree card, gain 1 soil.",
                                        "自分が木のカードをプレイしたとき、土を1個獲得する。"),
    ("barkdrummer-woodpecker", "goal"): ("There are at least 5 tree cards in your tableau.",
                                         "自分の場に木のカードが5枚以上ある。"),
    ("hoarding-badger", "goal"): ("You have at least 20 soil.", "土を20個以上持っている。"),
    ("noon-darkness", "black"): ("Each opponent gains 2 soil.", "他の各プレイヤーは、土を2個獲得する。"),
    ("hush-of-snow", "black"): ("If there are at least 3 cold cards in your tableau, draw 3 cards; otherwise, "
                                "draw 1 card.",
                                "自分の場に寒冷地のカードが3枚以上ある場合、カードを3枚引く。そうでない場合、カードを1枚引く。"),
    ("mountain-ridge", "brown"): ("Score 2 VP per card in the longest orthogonal line of rocky cards in your "
                                  "tableau through this card.",
                                  "このカードを通って自分の場の岩場のカードが縦横につながる最長の列のカード1枚につき、2VPを獲得する。"),
    ("swamp-sprouts", "blue"): ("Activate the blue ability of another card in your tableau.",
                                "自分の場の、このカード以外のカードの青の能力を発動する。"),
    ("four-kingdoms", "ecosystem"): ("Score 3 VP per set of one tree, one herb, one mushroom and one bush among "
                                     "cards in your tableau.",
                                     "自分の場のカードで作れる、木・ハーブ・キノコ・ブッシュを1枚ずつそろえた組1組につき、3VPを獲得する。"),
}


@pytest.mark.parametrize(("card", "timing"), sorted(EARTH))
def test_known_earth_sentences(compiled, card, timing):
    res = compiled("earth")
    en, ja = EARTH[(card, timing)]
    assert Describer(res, "en").ability(card, timing) == en
    assert Describer(res, "ja").ability(card, timing) == ja


def test_japanese_conjugation():
    assert conjugate("カードを1枚引く", "stem") == "カードを1枚引き"
    assert conjugate("土を2個獲得する", "stem") == "土を2個獲得し"
    assert conjugate("芽を1個置く", "te") == "芽を1個置いて"
    assert conjugate("土を1個得る", "stem") == "土を1個得"
    assert conjugate("プレイする", "ta") == "プレイした"
    assert conjugate("1つを選ぶ", "te") == "1つを選んで"
    assert conjugate("土を1個支払う", "te") == "土を1個支払って"
    assert conjugate("芽を土に変換する（何度でも）", "stem") == "芽を土に変換し（何度でも）"


def test_english_helpers():
    assert third_person("draw 2 cards") == "draws 2 cards"
    assert third_person("place 1 sprout in your tableau") == "places 1 sprout in their tableau"
    assert third_person("may draw 1 card") == "may draw 1 card"
    assert english_plural_marks("draw 1 card(s)") == "draw 1 card"
    assert english_plural_marks("draw up to 3 card(s)") == "draw up to 3 cards"


def _glossary_pack(tmp_path):
    pack = tmp_path / "gl"
    shutil.copytree(ROOT / "tests" / "fixtures" / "valid" / "minimal", pack)
    rules = pack / "rules.yaml"
    rules.write_text(rules.read_text(encoding="utf-8") + """
glossary:
  soil: {en: soil, en-plural: soil, ja: 土}
  coin: {en: coin, ja: コイン, ja-counter: 枚}
  tableau: {en: garden, ja: 庭}
  "draw $n": {en: "take $n card(s)", ja: "カードを$n枚取る"}
""", encoding="utf-8")
    return pack


def test_pack_glossary_gives_words_and_phrases(tmp_path):
    res = compile_pack(_glossary_pack(tmp_path))
    assert res.ok, res.diagnostics.items
    en, ja = Describer(res, "en"), Describer(res, "ja")
    assert en.ability("oak", "green") == "Take 1 card."
    assert ja.ability("oak", "green") == "カードを1枚取る。"
    assert en.ability("mint", "green") == "Pay 1 soil: gain 2 coins."
    assert ja.ability("mint", "green") == "土を1個支払うことで、コインを2枚獲得する。"


def test_describe_command(tmp_path):
    run = CliRunner().invoke(main, ["describe", "earth", "mossback-oak", "--lang", "ja"])
    assert run.exit_code == 0, run.output
    assert "自分の場に成長コマを1個置く。" in run.output
    run = CliRunner().invoke(main, ["describe", "earth", "mossback-oke"])
    assert run.exit_code == 2 and "mossback-oak" in run.output and "Traceback" not in run.output
    run = CliRunner().invoke(main, ["describe", str(_glossary_pack(tmp_path))])
    assert run.exit_code == 0 and "Take 1 card." in run.output


def test_source_text_reads_a_decisions_effect_language_as_the_pack_words_it(compiled):
    # What `cardsmith play` shows for an option or a `may` (the VM labels both with their source).
    earth = Describer(compiled("earth"), "en")
    # A macro with a glossary phrase reads as the phrase (Earth seed 000, 植え付け（緑）).
    assert earth.source("green action").text == "Take the planting action (green)."
    assert earth.source("compost 2 from discard").text == "Compost 2 cards from the discard pile."
    # 'it' chosen by the text itself is not the context's card; 'flip it' speaks of the card at hand.
    assert earth.source("flip it").free_it
    played = earth.source("choose a card in hand with type event: move it to events, emit play")
    assert played is not None and not played.free_it
    # Text that does not parse, or parses but does not check (sprout is a piece, not a resource), gives None.
    for bad in ("island and climate first", "gain 2 sprout", "gain ((", ""):
        assert earth.source(bad) is None, bad
    assert earth.fallbacks == []  # a rejected label leaves the describer's own record alone
    # A macro reads as its glossary phrase, never as its long body; a computed argument fits the phrase.
    tm = Describer(compiled("terraforming-mars"), "en")
    assert tm.source("remove 3 microbe from this: raise tr 1").text == \
        "Remove 3 microbes from this card: raise your TR 1 step."
    assert tm.source("raise tr (count(card in tableau with tag jovian))").text == \
        "Raise your TR 1 step per jovian card in your tableau."
    kept = tm.source("keep the card")
    assert kept is not None and kept.text == "Buy it for 3 M€." and kept.free_it


NEW_FORMS = {  # ability (green) -> its English text
    "for each card in hand with kind tree: let picked = it, move the picked to discard":
        "For each tree card in your hand, let the picked be it and move the picked to the discard.",
    "choose a card in tableau as pick: gain count(card in the zone of the pick) coin":
        "Choose a card in your tableau (the pick), then gain 1 coin per card in the zone of the pick.",
    "gain (if count(card in hand) > 2 then 1 else 2) coin":
        "Gain coins equal to 1 if there are more than 2 cards in your hand, else 2.",
    "for each card in tableau: gain count(card in tableau with kind tree and other than it) coin":
        "For each card in your tableau, gain 1 coin per tree card in your tableau other than it.",
    # 'each opponent' counts automa seats, 'each other player' does not: the text keeps them apart
    "each opponent: gain 1 soil": "Each opponent gains 1 soil.",
    "each other player: gain 1 soil": "Each other player gains 1 soil.",
    "automa crow: gain 1 soil": "The Crow gains 1 soil.",
    # a choice one of whose options does nothing is an optional effect, not 'choose one: do nothing; or ...'
    "choose one: nothing | gain 1 coin": "You may gain 1 coin.",
    "choose one: gain 2 coin | nothing | gain 1 soil": "You may choose one: gain 2 coins; or gain 1 soil.",
}


def test_local_names_automa_seats_and_conditional_values_read_in_every_language(tmp_path):
    pack = tmp_path / "locals"
    shutil.copytree(ROOT / "tests" / "fixtures" / "valid" / "minimal", pack)
    rules = pack / "rules.yaml"
    rules.write_text(rules.read_text(encoding="utf-8") + "\nautoma:\n  crow: {name: the Crow, names: {ja: カラス}}\n",
                     encoding="utf-8")
    cards = "".join(f"  - {{id: c{i}, name: C{i}, type: plant, abilities: {{green: {json.dumps(src)}}}}}\n"
                    for i, src in enumerate(NEW_FORMS))
    (pack / "cards.yaml").write_text((pack / "cards.yaml").read_text(encoding="utf-8") + cards, encoding="utf-8")
    res = compile_pack(pack)
    assert res.ok, res.diagnostics.items
    en, ja = Describer(res, "en"), Describer(res, "ja")
    for i, text in enumerate(NEW_FORMS.values()):
        assert en.ability(f"c{i}", "green") == text
    assert ja.ability("c6", "green") == "カラスは、soilを1個獲得する。"
    assert ja.ability("c7", "green") == "coinを1個獲得してもよい。"
    # a local name the glossary gives no word is a letter in Japanese, never its English name
    assert ja.ability("c1", "green") == \
        "自分のtableauのカード（以下「カードA」）を1枚選び、「カードA」のある置き場のカード1枚につき、coinを1個獲得する。"
    for d in (en, ja):
        for card in res.pack.cards:
            assert all(a.text for a in d.card(card))
        assert d.fallbacks == []


def test_a_rule_option_in_a_division_reads_by_name(compiled):
    """Gaia's row of action spaces is (difficulty - 1) / 2 (seeds/000 ソロモード: ガイアが得る利益は選んだ難易度
    によって異なる): the reference gives the rule, not its value at the default difficulty ('1 ÷ 2')."""
    en = Describer(compiled("earth-gaia"), "en", mode="rules")
    ja = Describer(compiled("earth-gaia"), "ja", mode="rules")
    text_en = str(en.macro_body("gaia follows the blue action"))
    text_ja = str(ja.macro_body("gaia follows the blue action"))
    assert "(difficulty − 1) ÷ 2" in text_en and "1 ÷ 2" not in text_en.replace("(difficulty − 1) ÷ 2", ""), text_en
    assert "難易度−1）÷2" in text_ja, text_ja


def test_counting_players_reads_in_both_languages(compiled):
    """Terraforming Mars' action phase ends when every player has passed (seeds/003 ４）③): the named value
    counts the players who have not, in words of several players ('who are', not 'who is')."""
    tm = compiled("terraforming-mars")
    assert Describer(tm, "en", mode="rules").macro_body("everyone-passed") == \
        "the number of players who are not passed is 0"
    assert Describer(tm, "ja", mode="rules").macro_body("everyone-passed") == \
        "パス済みの印がないプレイヤーの人数が0である"
