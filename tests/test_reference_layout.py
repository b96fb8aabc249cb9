"""The rule reference as a player reads it: setup and the game flow as numbered procedures (not paragraphs of
hundreds of words), no counter the rules keep for themselves listed as a player's resource, game words titled
in words (no '$n', no empty 'Do nothing.'), and card counts that say what they count."""

from __future__ import annotations

import re

import pytest

from cardsmith.compiler.packs import builtin_packs
from cardsmith.compiler.pipeline import compile_pack
from cardsmith.present.describe import Describer
from cardsmith.present.reference import _width, build_reference
from cardsmith.present.render import render_html, render_markdown

LONGEST_STEP = 400  # characters (CJK counting double): a step is a sentence or two, not a paragraph


@pytest.fixture(scope="module")
def refs():
    """Every built-in pack's reference in both languages, built once."""
    out = {}
    for pack in sorted(builtin_packs()):
        res = compile_pack(pack)
        assert res.ok
        for lang in ("en", "ja"):
            out[pack, lang] = (res, build_reference(res, lang))
    return out


def _walk(steps, depth=0):
    for st in steps:
        yield st, depth
        yield from _walk(st.children, depth + 1)


def _section(ref, sid):
    return next(s for s in ref.sections if s.id == sid)


def test_setup_and_flow_are_numbered_steps(refs):
    for (pack, lang), (_, ref) in refs.items():
        for sid in ("setup", "flow"):
            blocks = [b for b in _section(ref, sid).blocks if b.kind == "steps"]
            assert blocks and all(b.ordered for b in blocks), (pack, sid)
            for b in blocks:
                for st, _ in _walk(b.steps):
                    assert 0 < _width(st.text) <= LONGEST_STEP, (pack, lang, sid, st.text[:120])


def test_terraforming_mars_setup_is_a_procedure(refs):
    """③ Setup (seeds/terraforming-mars: ３）ゲームの準備): the deck and the corporations are shuffled, then each
    player gets their production, corporation and cards; the reference opens 'prepare the game' into those steps."""
    ref = refs["terraforming-mars", "en"][1]
    steps = _section(ref, "setup").blocks[0].steps
    assert [s.text for s in steps[:2]] == ["Shuffle the deck.", "Shuffle the corporation deck."]
    assert len(steps) >= 4 and all(not s.text.startswith("Prepare the game") for s in steps)
    player = next(s for s in steps if s.children and "each player" in s.text.lower())
    assert len(player.children) >= 4  # production, corporation, starting M€, cards: one step each
    # the production phase, one step per resource rather than one sentence of them all
    flow = [st for st, _ in _walk(_section(ref, "flow").blocks[0].steps)]
    assert any(st.text == "Gain steel equal to your steel production." for st in flow)
    html = render_html(ref)
    setup = html[html.index('<section id="setup">'):html.index('<section id="flow">')]
    assert "<ul>" not in setup and setup.count("<ol>") >= 3  # numbered at every level
    md = render_markdown(ref)
    assert "\n   1. " in md[md.index('<a id="setup">'):md.index('<a id="flow">')]


def test_a_macro_opens_once(refs):
    """Birdscaping's flow calls the same macro at several places: its steps are spelled out once."""
    for (pack, lang), (_, ref) in refs.items():
        for sid in ("setup", "flow"):
            texts = [st.text for b in _section(ref, sid).blocks for st, _ in _walk(b.steps) if st.children]
            opened = [t for t in texts if texts.count(t) > 1 and not t.endswith((":", "："))]
            assert not opened, (pack, lang, sid, opened[:3])


def test_internal_counters_are_not_listed(refs):
    for (pack, lang), (res, ref) in refs.items():
        internal = {n for table in (res.pack.resources, res.pack.counters) for n, v in table.items()
                    if (v or {}).get("internal")}
        comps = _section(ref, "components")
        listed = {row[0] for sub in comps.subsections if sub.id in ("resources", "counters")
                  for b in sub.blocks for row in b.rows}
        lex = Describer(res, lang).lex
        words = {lex.term(n, sec=sec) for n in internal for sec in ("resources", "counters")}
        assert not (listed & (words | internal)), (pack, lang, listed & (words | internal))
    # Terraforming Mars: the requirement slack is the rules' own, and 'passed' is a mark, not a resource
    tm = _section(refs["terraforming-mars", "en"][1], "components")
    resources = next(s for s in tm.subsections if s.id == "resources").blocks[0]
    names = {row[0] for row in resources.rows}
    assert "M€" in names and not names & {"slack", "special slack", "passed", "metric", "price", "use steel"}


def test_game_words_read_as_words(refs):
    for (pack, lang), (_, ref) in refs.items():
        html = render_html(ref)
        assert not re.search(r"\$[a-z]", html), (pack, lang, re.search(r".{40}\$[a-z].{20}", html))
        nothing = ("Do nothing", "何もしない")
        words = _section(ref, "words")
        for b in words.blocks:
            for title, text in b.items:
                assert text.strip(" .。") not in nothing, (pack, lang, title)
        # nor a step that does nothing (a hook an expansion emptied, a scoring step solo play leaves out)
        for sec in ref.sections:
            for b in sec.blocks:
                for st, _ in _walk(b.steps):
                    assert not st.text.rstrip(" .。").endswith(nothing), (pack, lang, sec.id, st.text)
    earth = _section(refs["earth", "en"][1], "words").blocks[0].items
    titles = [t for t, _ in earth]
    assert "Draw N cards, keep K of them and discard the rest" in titles
    assert not any(t.startswith("after the") for t in titles)  # a hook that does nothing is no game word


def test_card_counts_say_what_they_count(refs):
    for lang, head, flora in (("en", ["Type", "Different cards", "Cards in all", "starts in"],
                               "92 different cards, 140 in all"),
                              ("ja", None, "92種類・計140枚")):
        ref = refs["earth", lang][1]
        types = next(s for s in _section(ref, "components").subsections if s.id == "card-types").blocks[0]
        if head:
            assert types.head == head
        row = next(r for r in types.rows if r[1:3] == ["92", "140"])
        assert row[0] == ref.card_groups[0][0]
        assert ref.group_counts[row[0]] == flora
        html = render_html(ref)
        assert f'<span class="count">— {flora}</span>' in html
    # double-sided cards: the count is of cards, and the listing says both sides are there
    climate = next(g for g, _ in refs["earth", "en"][1].card_groups if g == "climate")
    assert refs["earth", "en"][1].group_counts[climate] == "8 cards; both sides of each listed"
    # parts of a board are counted, not called cards (they are 'printed on the board, not as cards')
    tm = refs["terraforming-mars", "en"][1]
    assert tm.group_counts["space"] == "61" and tm.group_counts["automated"].endswith("cards")


def test_no_seed_citation_marks_in_descriptions(refs):
    """'(F)', '(③④: ...)' tell a designer where a rule comes from; a player's reference shows none."""
    for (pack, lang), (_, ref) in refs.items():
        comps = _section(ref, "components")
        for sub in comps.subsections:
            for b in sub.blocks:
                for row in b.rows:
                    for cell in row:
                        assert not re.search(r"[\u2460-\u2473]|\([A-Z]\)", cell), (pack, lang, cell)


def test_a_long_definition_reads_as_a_procedure(refs):
    """Living Forest's goal check (seeds/living-forest: 勝利条件) does a dozen things for each player: the end of
    the game lists them as numbered steps, not as a paragraph of a thousand characters."""
    for lang in ("en", "ja"):
        ref = refs["living-forest", lang][1]
        end = _section(ref, "end")
        procedures = [b for b in end.blocks if b.kind == "procedure"]
        assert procedures and all(len(list(_walk(b.steps))) >= 5 for b in procedures)
        assert all(_width(v) <= LONGEST_STEP for b in end.blocks if b.kind == "defs" for _, v in b.items)
        html = render_html(ref)
        section = html[html.index('<section id="end">'):html.index("</section>", html.index('<section id="end">'))]
        assert "<dd><ol>" in section
        md = render_markdown(ref)
        assert "\n   1. " in md[md.index('<a id="end">'):md.index('<a id="scoring">')]
