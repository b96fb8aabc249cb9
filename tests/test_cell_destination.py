"""A move that names its destination cell: `move ... to ZONE at row R column C`.

Living Forest puts the starting tree in the centre of each forest board (seeds/002_172948770584c472.txt,
ゲームの準備: 森ボードの中央に「始めの木」タイルを１枚置く) and plants later trees next to a planted one
(アクションフェイズ: 配置済の木と隣接した位置に配置する): the program, not the player, names the cell, and
a cell that cannot take the card leaves it where it is.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from cardsmith.compiler import compile_pack
from helpers import VMTEST, run_scenario

# vmtest's `board` is a 3x3 grid with placement: adjacent; `map` a shared hex board of rows 2, 3, 2.


def zone_ids(out, zname: str, seat: int) -> list[str | None]:
    st, cards = out.game.state, out.game.pack.cards
    return [None if c is None else cards[st.cards[c].defn].id for c in st.zones[(zname, seat)]]


def test_named_cell_takes_the_card_without_asking(tmp_path):
    # No decisions are scripted: a question about the cell would fail the scenario.
    out = run_scenario(tmp_path, {
        "do": "move 1 card from deck to board at row 2 column 3", "players": 1,
        "state": {"shared": {"zones": {"deck": ["red-a", "blue-a"]}}},
        "expect": {"players": [{"zones": {"board": {"2,3": "red-a"}}}], "shared": {"zones": {"deck": ["blue-a"]}}}})
    assert out.problems == []


def test_cell_from_params_expressions_and_the_moving_card(tmp_path):
    # row: bonus (4) - 3 = 1; column: the moving card's own cost (red-a: 2)
    out = run_scenario(tmp_path, {
        "do": "move 1 card from deck to board at row bonus - 3 column cost of it", "players": 1,
        "state": {"shared": {"zones": {"deck": ["red-a"]}}},
        "expect": {"players": [{"zones": {"board": {"1,2": "red-a"}}}]}})
    assert out.problems == []


def test_taken_cell_leaves_the_card_where_it_is(tmp_path):
    out = run_scenario(tmp_path, {
        "do": "for each card in hand: move it to board at row 2 column 2", "players": 1,
        "state": {"players": [{"zones": {"hand": ["red-a", "red-b"]}}]}})
    assert out.problems == []
    board, hand = zone_ids(out, "board", 0), zone_ids(out, "hand", 0)
    # the first card takes the centre; the second finds it taken and stays in the hand
    assert board.count(None) == 8 and board[4] in ("red-a", "red-b")
    assert len(hand) == 1 and hand[0] != board[4]


def test_cell_outside_the_board_leaves_the_card_where_it_is(tmp_path):
    for row, col in ((4, 1), (1, 4), (0, 2), (2, 0), (-1, -1)):
        out = run_scenario(tmp_path, {
            "do": f"move 1 card from deck to board at row {row} column {col}", "players": 1,
            "state": {"shared": {"zones": {"deck": ["red-a"]}}},
            "expect": {"players": [{"zones": {"board": {"count": 0}}}], "shared": {"zones": {"deck": ["red-a"]}}}})
        assert out.problems == [], (row, col)
    # a hex board's rows differ in length: row 1 has 2 cells, row 2 has 3
    out = run_scenario(tmp_path, {
        "do": "move 1 card from deck to map at row 1 column 3, move 1 card from deck to map at row 2 column 3",
        "players": 1, "state": {"shared": {"zones": {"deck": ["s1", "s2"]}}},
        "expect": {"shared": {"zones": {"map": {"2,3": "s1"}, "deck": ["s2"]}}}})
    assert out.problems == []


def test_cell_keeps_the_boards_placement_rule(tmp_path):
    # placement: adjacent (Living Forest: 配置済の木と隣接した位置): once a card is on the board, a named cell
    # must touch one; diagonals do not count on a 4-neighbour grid
    out = run_scenario(tmp_path, {
        "do": "move 1 card from deck to board at row 1 column 1, move 1 card from deck to board at row 2 column 2, "
              "move 1 card from deck to board at row 1 column 2",
        "players": 1, "state": {"shared": {"zones": {"deck": ["red-a", "red-b", "blue-a"]}}},
        "expect": {"players": [{"zones": {"board": {"1,1": "red-a", "1,2": "red-b"}}}],
                   "shared": {"zones": {"deck": ["blue-a"]}}}})
    assert out.problems == []


def test_moving_several_cards_to_one_cell_moves_the_first_only(tmp_path):
    out = run_scenario(tmp_path, {
        "do": "move 2 card from deck to board at row 3 column 3 face down", "players": 1,
        "state": {"shared": {"zones": {"deck": ["red-a", "red-b"]}}},
        "expect": {"players": [{"zones": {"board": {"3,3": "red-a"}}}], "shared": {"zones": {"deck": ["red-b"]}}}})
    assert out.problems == []
    st = out.game.state
    assert st.cards[st.zones[("board", 0)][8]].face_down


def _compile_with(tmp_path: Path, ability: str):
    pack = tmp_path / "pack"
    shutil.copytree(VMTEST, pack)
    line = f'  - {{id: mover, name: Mover, type: unit, abilities: {{act: "{ability}"}}}}\n'
    with (pack / "cards.yaml").open("a", encoding="utf-8") as fh:
        fh.write(line)
    n = (pack / "cards.yaml").read_text(encoding="utf-8").count("\n")
    return compile_pack(pack), n, line


def test_cell_on_a_zone_without_cells_is_an_error_at_the_word(tmp_path):
    ability = "move this to row at row 1 column 1"
    result, line_no, line = _compile_with(tmp_path, ability)
    errors = [d for d in result.diagnostics.items if d.code == "E102"]
    assert len(errors) == 1, [str(d.message) for d in result.diagnostics.items]
    d = errors[0]
    assert "cell of a board" in d.message and "'row' is a row" in d.message
    assert d.span.file.endswith("cards.yaml") and d.span.line == line_no
    assert d.span.col == line.index("at row 1") + 1
    assert not result.ok


def test_cell_cannot_be_a_cost(tmp_path):
    result, line_no, line = _compile_with(tmp_path, "move this to board at row 1 column 1: gain 1 gold")
    errors = [d for d in result.diagnostics.items if d.code == "E105"]
    assert len(errors) == 1 and errors[0].span.line == line_no
    assert errors[0].span.col == line.index("at row 1") + 1


def test_cell_that_is_not_a_number_is_an_error(tmp_path):
    result, _, _ = _compile_with(tmp_path, "move this to board at row gold >= 1 column 1")
    assert any(d.code == "E102" and "expected a number" in d.message for d in result.diagnostics.items)


def test_card_text_names_the_cell_in_english_and_japanese(tmp_path):
    from cardsmith.present.describe import Describer

    result, _, _ = _compile_with(tmp_path, "move this to board at row 2 column bonus - 1")
    assert result.ok, result.diagnostics.items[:3]
    en = Describer(result, "en").ability("mover", "act")
    ja = Describer(result, "ja").ability("mover", "act")
    assert "board at row 2, column 3" in en, en
    assert "2行目3列目のマス" in ja, ja
