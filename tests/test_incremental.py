"""compile_pack(ref, memo=CompileMemo()): an editor's compile on every keystroke. Unsaved buffers win over the
disk; a keystroke inside one card compiles that card alone; and after any sequence of edits the diagnostics
(and the compiled cards) are exactly those of a compile from scratch of the same texts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cardsmith.compiler import compile_pack
from cardsmith.compiler.incremental import CompileMemo
from helpers import ROOT


def _key(d):
    return d.code, d.message, Path(d.span.file).name, d.span.line, d.span.col, d.hint


def _cards(result):
    """Each card's compiled abilities without span indices (a memo's span table holds old spans too)."""
    if result.pack is None:
        return None
    return {c.id: (c.type, c.traits, c.stats, c.back,
                   {t: [op for op in code.ops] for t, code in c.abilities.items()}) for c in result.pack.cards}


def _from_scratch(root: Path, pack: str, texts: dict[str, str]):
    """The copy of the built-in packs in `root` with `texts` written in, compiled without a memo."""
    if not root.exists():
        for folder in (ROOT / "cards").iterdir():
            if (folder / "pack.yaml").is_file():
                shutil.copytree(folder, root / folder.name, ignore=shutil.ignore_patterns("scenarios"))
    for rel, text in texts.items():
        (root / rel).write_text(text, encoding="utf-8")
    return compile_pack(root / pack)


EDITS = {
    "earth": [
        ("earth/flora.yaml", "gain", "gian"),  # an unknown action
        ("earth/flora.yaml", "soil", "soyl"),  # an unknown resource, in another card
        ("earth/events.yaml", "id: ", "id: flora-"),  # ids that may collide with another file's
        ("earth/flora.yaml", "type: flora", "type: florra"),  # a wrong card type
        ("earth/rules.yaml", "sprout:", "sprouts:"),  # the vocabulary changes under every card
    ],
    "terraforming-mars": [
        ("terraforming-mars/cards-001-050.yaml", "raise temperature", "raise temprature"),  # a macro call
        ("terraforming-mars/cards-051-100.yaml", "{tag: ", "{tagz: "),  # a trait that does not exist
        ("terraforming-mars/cards-001-050.yaml", "\n  - id:", "\n  - {}\n  - id:"),  # a card without fields
    ],
}


@pytest.mark.parametrize("pack", sorted(EDITS))
def test_diagnostics_after_each_edit_equal_a_compile_from_scratch(tmp_path, pack):
    memo = CompileMemo()
    base = compile_pack(ROOT / "cards" / pack, memo=memo)
    assert base.ok and not base.diagnostics.items
    texts: dict[str, str] = {}
    for n, (rel, old, new) in enumerate(EDITS[pack]):
        path = ROOT / "cards" / rel
        text = texts.get(rel, path.read_text(encoding="utf-8"))
        assert old in text, (rel, old)
        texts[rel] = text.replace(old, new, 2)
        memo.overlay[path.resolve()] = texts[rel]
        edited = compile_pack(ROOT / "cards" / pack, memo=memo)
        scratch = _from_scratch(tmp_path / "scratch", pack, texts)
        assert [_key(d) for d in edited.diagnostics.items] == [_key(d) for d in scratch.diagnostics.items], rel
        assert edited.diagnostics.items, f"edit {n} ({rel}: {old!r} -> {new!r}) should have made a finding"
        assert _cards(edited) == _cards(scratch)
    memo.overlay.clear()  # the buffers closed unsaved: the pack on the disk again, clean
    again = compile_pack(ROOT / "cards" / pack, memo=memo)
    assert again.ok and not again.diagnostics.items
    assert _cards(again) == _cards(base)
    assert again.cards_compiled == base.cards_compiled


@pytest.mark.parametrize(("pack", "rel"), [("earth", "earth/flora.yaml"),
                                           ("terraforming-mars", "terraforming-mars/cards-001-050.yaml")])
def test_a_keystroke_in_one_card_reads_one_file_and_compiles_one_card(pack, rel):
    memo = CompileMemo()
    first = compile_pack(ROOT / "cards" / pack, memo=memo)
    assert memo.cards_kept == 0 and memo.cards_compiled == first.cards_compiled
    path = (ROOT / "cards" / rel).resolve()
    text = path.read_text(encoding="utf-8")
    at = text.index("abilities:")
    line_end = text.index("\n", at)
    memo.overlay[path] = text[:line_end] + "  # a comment typed at the end of a line" + text[line_end:]
    res = compile_pack(ROOT / "cards" / pack, memo=memo)
    assert res.ok
    assert (memo.files_read, memo.cards_compiled) == (1, 1)
    assert memo.cards_kept == first.cards_compiled - 1
    assert _cards(res) == _cards(first)
    # a line added near the top moves every card below it: each compiles again, with its new lines
    memo.overlay[path] = "# a new first line\n" + text
    res = compile_pack(ROOT / "cards" / pack, memo=memo)
    assert memo.cards_compiled >= 10
    moved = [c for c in res.pack.cards if Path(res.pack.span(c.span).file).name == Path(rel).name]
    assert moved and all(res.pack.span(c.span).line > 1 for c in moved)


def test_an_unsaved_buffer_wins_over_the_file_on_disk_and_positions_follow_it(tmp_path):
    shutil.copytree(ROOT / "cards" / "earth", tmp_path / "earth", ignore=shutil.ignore_patterns("scenarios"))
    flora = (tmp_path / "earth" / "flora.yaml").resolve()
    memo = CompileMemo()
    text = flora.read_text(encoding="utf-8")
    memo.overlay[flora] = text.replace("gain 1 soil", "gain 1 soyl", 1)
    res = compile_pack(tmp_path / "earth", memo=memo)
    (d,) = res.diagnostics.items
    line = memo.overlay[flora].splitlines()[d.span.line - 1]
    assert (d.code, line[d.span.col - 1:d.span.end_col - 1]) == ("E101", "soyl")
    # the disk changes under the buffer: the buffer still wins; once closed, the disk is read again
    flora.write_text("cards: []\n", encoding="utf-8")
    assert [x.code for x in compile_pack(tmp_path / "earth", memo=memo).diagnostics.items] == ["E101"]
    del memo.overlay[flora]
    res = compile_pack(tmp_path / "earth", memo=memo)
    assert res.ok and not any(Path(res.pack.span(c.span).file).name == "flora.yaml" for c in res.pack.cards)


def test_the_kept_span_table_starts_afresh_once_edits_have_grown_it():
    memo = CompileMemo()
    compile_pack("earth", memo=memo)
    flora = (ROOT / "cards" / "earth" / "flora.yaml").resolve()
    text = flora.read_text(encoding="utf-8")
    fresh = len(memo.spans.spans)
    for n in range(1, 12):  # each edit moves every card of the file down a line: new spans each time
        memo.overlay[flora] = "#\n" * n + text
        res = compile_pack("earth", memo=memo)
        assert res.ok
        assert len(memo.spans.spans) <= 4 * fresh
