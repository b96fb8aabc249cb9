"""Generated card text a player can read, for every built-in pack in English and Japanese.

Terraforming Mars is checked against the printed cards: tests/fixtures/text_quality/tm_project_cards.json
holds, for each of the 208 project cards, only how many words its printed rule text has and which whole
numbers it mentions (derived once from ../shared/reference/terraforming-mars/project_cards.json; no
wording). The generated English of a card must mention the same numbers and use at most twice the words.

Every pack, both languages: no text names a counter the rules declare `internal`, shows a `$parameter`,
falls back to effect-language source, names a macro call as written (W130), or runs over 300 characters;
no Japanese text or card name holds an ASCII word the pack's Japanese vocabulary does not use itself
(an id left untranslated: 'tilted', 'price').

The rule reference likewise, all of it (section titles, paragraphs, steps, table cells, definitions, the
catalogue): in Japanese no ASCII word outside the pack's Japanese vocabulary (a macro titled by its signature,
'call another animal'; a local name, 'placed'; a parameter, 'WHAT'); in English no `$parameter`, no counter the
rules keep for themselves and no local name (`let NAME`, `as NAME`) said as a bare word ('let placed be 0'):
a local reads as its glossary word ('local NAME') or as what it names.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest

from cardsmith.compiler import ast as A
from cardsmith.compiler import compile_pack
from cardsmith.present.describe import LANGS, Describer, third_person
from cardsmith.present.lexicon import SOURCE_LANG, Lexicon
from cardsmith.present.reference import Section, build_reference
from cardsmith.present.text_realise import language_data

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


# ------------------------------------------------------------------------- the rule reference


def section_texts(sec: Section, where: str = ""):
    """(where, text) for a section's title and everything its blocks and subsections say."""
    where = f"{where}/{sec.id}"
    yield where, sec.title

    def steps(items, at):
        for st in items:
            yield at, st.text
            yield from steps(st.children, at)

    for b in sec.blocks:
        yield where, b.text
        yield from steps(b.steps, where)
        yield from ((where, h) for h in b.head)
        for row in b.rows:  # a timings row opens with the timing's id: the key of its icon, not printed
            yield from ((where, c) for c in (row[1:] if b.kind == "timings" else row))
        for label, text in b.items:
            yield where, label
            yield where, text
    for sub in sec.subsections:
        yield from section_texts(sub, where)


def reference_texts(ref):
    """Everything a pack's rule reference prints: its sections, then the catalogue of cards."""
    for sec in ref.sections:
        yield from section_texts(sec)
    for c in ref.cards:
        yield f"card {c.id}", c.name
        yield f"card {c.id}", c.type
        yield from ((f"card {c.id}", t) for t in c.traits)
        yield from ((f"card {c.id}", label) for label, _ in c.stats)
        yield from ((f"card {c.id}", a.text) for a in c.abilities)


def local_names(res) -> dict[str, str]:
    """Every name a program of the pack binds ('let NAME = ...', 'as NAME', 'choose a player ... as NAME'), with
    what it names: a number, a card or a player."""
    names: dict[str, str] = {}
    seen: dict[int, object] = {}  # shared subtrees walked once (kept, so that no id is reused)

    def walk(node) -> None:
        if id(node) in seen:
            return
        seen[id(node)] = node
        if isinstance(node, tuple | list):
            for x in node:
                walk(x)
            return
        if not isinstance(node, A.Node):
            return
        if isinstance(node, A.Let):
            names[node.name] = ("player" if isinstance(node.value, A.PlayerRef) else
                                "card" if isinstance(node.value, A.It | A.This | A.LocalCard) else "number")
        elif isinstance(node, A.ForEach | A.ChooseCard | A.ChoosePlayer | A.Players) and node.name:
            names[node.name] = "card" if isinstance(node, A.ForEach | A.ChooseCard) else "player"
        for f in node.__dataclass_fields__:
            walk(getattr(node, f))

    walk(list(res.asts.values()))
    for macros in res.compiler.macros.values():
        walk([m.body for m in macros if hasattr(m, "body")])
    return names


def english_phrases(lex: Lexicon) -> set[str]:
    """What English text may say that holds a word spelled like a local name: the pack's words (its
    vocabulary, glossary, cards, scoring steps, descriptions) and the fixed words of the language's sentences
    ('from right to left')."""
    out = {lex.term(n) for n in lex.kind} | {lex.term(n, plural=True) for n in lex.kind}
    for entry in lex.glossary.values():  # a local's own word ('local placed') included: it is what it reads as
        if isinstance(entry, dict):
            out |= {str(entry.get(SOURCE_LANG) or ""), str(entry.get(f"{SOURCE_LANG}-plural") or "")}
    out |= {c.name for c in lex.pack.cards}
    out |= {str(step.get("name") or "") for step in lex.pack.scoring}
    for section in lex.voc.sections.values():  # the descriptions of rules.yaml entries, free English prose
        out |= {str(e.value.get("description") or "") for e in section.values() if isinstance(e.value, dict)}
    data = language_data(SOURCE_LANG)
    for template in [*data["templates"].values(), *data["labels"].values()]:
        parts = [p.strip() for p in re.split(r"\{[^}]*\}", str(template))]
        out |= {*parts, *(third_person(p) for p in parts if p)}  # 'the first player passes the marker'
        out |= {re.sub(r"\byour\b", "their", p) for p in parts}  # 'their left neighbour'
    return {p.strip(" ,.;:") for p in out if p and p.strip(" ,.;:")}


def _whole(word: str) -> re.Pattern:
    return re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.IGNORECASE)


def shielding(words: set[str], protected: set[str]) -> set[str]:
    """The protected phrases that hold one of the words: the only ones that can cover one."""
    found = [_whole(w) for w in words]
    return {p for p in protected if any(w.search(p) for w in found)}


def bare_words(text: str, words: set[str], protected: set[str]) -> list[str]:
    """The words a text says bare, outside any phrase of the pack or the language (`protected`)."""
    covered = [False] * len(text)
    for phrase in protected:
        for m in _whole(phrase).finditer(text):
            covered[m.start():m.end()] = [True] * (m.end() - m.start())
    return sorted(w for w in words if any(not all(covered[m.start():m.end()]) for m in _whole(w).finditer(text)))


@pytest.fixture(scope="module")
def references(packs):
    cache: dict = {}

    def get(pack: str, lang: str):
        if (pack, lang) not in cache:
            cache[pack, lang] = build_reference(packs(pack), lang)
        return cache[pack, lang]

    return get


@pytest.mark.parametrize("pack", PACKS)
def test_japanese_reference_has_no_english_id(packs, references, pack):
    """Every title, paragraph, step, table cell and card of the Japanese reference in the pack's Japanese words:
    no ASCII id of its vocabulary, no macro signature, no local name, no parameter named in English."""
    res = packs(pack)
    allowed = ascii_vocabulary(Describer(res, "ja"))
    problems = []
    for where, text in reference_texts(references(pack, "ja")):
        ids = sorted(set(_ASCII_WORD.findall(text or "")) - allowed)
        if ids:
            problems.append(f"{where}: {ids}: {text[:160]}")
    assert not problems, f"{len(problems)} texts with English ids:\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("pack", PACKS)
def test_english_reference_names_what_players_see(packs, references, pack):
    """No `$parameter`, no counter the rules keep for themselves and no local name as a bare word."""
    res = packs(pack)
    d = Describer(res, "en")
    hidden = internal_words(res, d)
    names = local_names(res)
    words = hidden | {d.lex.spell(n) for n in names}
    # a phrase that is the word itself covers nothing; what a local with no glossary word reads as covers it
    said = {f"number {d.lex.spell(n)}" if kind == "number" else f"the {d.lex.spell(n)}" for n, kind in names.items()}
    protected = shielding(words, (english_phrases(d.lex) - words) | said)
    problems = []
    for where, text in reference_texts(references(pack, "en")):
        if not text:
            continue
        if "$" in text:
            problems.append(f"{where}: a $parameter: {text[:160]}")
        leaks = bare_words(text, words, protected)
        if leaks:
            problems.append(f"{where}: internal or local {sorted(leaks)}: {text[:160]}")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])
