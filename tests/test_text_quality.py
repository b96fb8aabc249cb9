"""Generated card text a player can read, for every built-in pack in English and Japanese.

Terraforming Mars is checked against the printed cards: tests/fixtures/text_quality/tm_project_cards.json
holds, for each of the 208 project cards, only how many words its printed rule text has and which whole
numbers it mentions (derived once from ../shared/reference/terraforming-mars/project_cards.json; no
wording). The generated English of a card must mention the same numbers and use at most twice the words.

Every pack, both languages: no text names a counter the rules declare `internal`, shows a `$parameter`,
falls back to effect-language source, names a macro call as written (W130), or runs over 300 characters;
no Japanese text or card name holds an ASCII word the pack's Japanese vocabulary does not use itself
(an id left untranslated: 'tilted', 'price').
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.present.describe import LANGS, Describer

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "text_quality" / "tm_project_cards.json"
PACKS = ["earth", "earth-abundance", "earth-gaia", "living-forest", "terraforming-mars",
         "terraforming-mars-corporate-era", "birdscaping", "birdscaping-solo"]
MAX_CHARS = 300
MAX_WORD_RATIO = 2.0
PROJECT_TYPES = ("automated", "active", "event")
_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")


@pytest.fixture(scope="module")
def packs():
    cache: dict = {}

    def get(ref: str):
        if ref not in cache:
            res = compile_pack(ref)
            assert res.ok, res.diagnostics.items[:3]
            cache[ref] = res
        return cache[ref]

    return get


def card_texts(res, lang: str) -> tuple[Describer, list[tuple[str, str]]]:
    """(card id, text) for every ability of every card; the card's name first."""
    d = Describer(res, lang)
    out = []
    for card in res.pack.cards:
        out.append((card.id, d.card_name(card)))
        abilities = d.card(card)
        out += [(f"{card.id} {a.timing}", a.text) for a in abilities]
        if not abilities:  # what describe prints for a card of facts only
            out.append((f"{card.id} facts", d.facts(card)))
    return d, out


def internal_words(res, d: Describer) -> set[str]:
    """What the text would call a counter the rules keep for themselves (its term, its spelled name)."""
    words = set()
    for sec in (res.pack.resources, res.pack.counters):
        for name, decl in sec.items():
            if (decl or {}).get("internal"):
                words |= {d.lex.term(name), d.lex.spell(name)}
    return {w for w in words if w}


def ascii_vocabulary(d: Describer) -> set[str]:
    """The ASCII words the pack's own Japanese words use ('TR', 'M€', 'VP'), which may stand in Japanese text."""
    lex = d.lex
    words = {"X", "VP", *"ABCDEFGHIJKLMNOPQRSTUVWXYZ"}  # single capitals label places ('A1', 'tree 3A')
    for entry in lex.glossary.values():
        if isinstance(entry, dict):
            words |= set(_ASCII_WORD.findall(str(entry.get("ja", ""))))
    for sec in lex.SECTIONS:
        for name in lex.voc.sections.get(sec, {}):
            if lex.has(name):  # a word given in Japanese, not the English one standing in for it
                words |= set(_ASCII_WORD.findall(lex.term(name)))
    return words


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("pack", PACKS)
def test_every_text_is_player_facing(packs, pack, lang):
    res = packs(pack)
    assert not [d for d in res.diagnostics.items if d.code == "W130"], "a macro card text calls has no phrase"
    d, texts = card_texts(res, lang)
    assert d.fallbacks == [], f"effect-language fallbacks: {d.fallbacks[:3]}"
    hidden = internal_words(res, d)
    allowed = ascii_vocabulary(d) if lang == "ja" else set()
    problems = []
    for where, text in texts:
        if "$" in text:
            problems.append(f"{where}: a $parameter: {text}")
        if len(text) > MAX_CHARS:
            problems.append(f"{where}: {len(text)} characters: {text[:80]}...")
        leaks = [w for w in hidden if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text)]
        if lang == "ja":
            leaks += sorted(set(_ASCII_WORD.findall(text)) - allowed)
        if leaks:
            problems.append(f"{where}: internal or untranslated {leaks}: {text}")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


def tm_project_rows(res) -> list[tuple[float, str, set[int], str]]:
    """(words / printed words, card number, printed numbers missing from the text, text) per project card."""
    facts = json.loads(FIXTURE.read_text(encoding="utf-8"))["cards"]
    d = Describer(res, "en")
    rows = []
    for card in res.pack.cards:
        if card.type not in PROJECT_TYPES or card.number not in facts:
            continue
        text = " ".join(a.text for a in d.card(card))
        printed = facts[card.number]
        said = {abs(int(n)) for n in re.findall(r"-?\d+", text)}
        rows.append((len(text.split()) / max(printed["words"], 1), card.number, set(printed["numbers"]) - said, text))
    return rows


def test_terraforming_mars_project_cards_read_like_the_printed_ones(packs):
    rows = tm_project_rows(packs("terraforming-mars-corporate-era"))
    assert len(rows) == 208, "every project card of the base box (standard game and Corporate Era)"
    long = [f"{n}: {r:.1f}x: {t}" for r, n, _, t in rows if r > MAX_WORD_RATIO]
    assert not long, f"{len(long)} cards over {MAX_WORD_RATIO}x the printed words:\n" + "\n".join(long[:20])
    missing = [f"{n}: lacks {sorted(m)}: {t}" for _, n, m, t in rows if m]
    assert not missing, f"{len(missing)} cards lack a printed number:\n" + "\n".join(missing[:20])
    assert statistics.median(r for r, *_ in rows) <= 1.2
