"""`cardsmith play` never names a card the person cannot see, and reads as a player would want it to.

The screen is scanned as it is written: every line `play` prints is checked against the game as it
stands at that moment, for the names of the cards the person's seat neither sees nor saw go where they
are (runtime/visibility.py). The session is the real command (click's CliRunner), with scripted
answers; the check wraps the session's `write`.
"""

from __future__ import annotations

import re
from typing import ClassVar

import pytest
from click.testing import CliRunner

import cardsmith.terminal
from cardsmith.cli import main
from cardsmith.runtime import Game
from cardsmith.runtime.visibility import visibility_for
from cardsmith.terminal import PlaySession, Viewer
from cardsmith.terminal.view import CardTexts

PACKS = ("earth", "terraforming-mars", "living-forest", "birdscaping")


def hidden_names(game: Game, seat: int) -> set[str]:
    """Names of cards the seat cannot see now, but only names no card it can see shares (copies, and names
    inside other names: 'Oak' in 'Mossback Oak')."""
    st = game.state
    vis = visibility_for(game.pack)
    seen, unseen = set(), set()
    for cid, card in enumerate(st.cards):
        name = game.pack.cards[card.defn].name
        (seen if vis.seen_by(st, cid, seat) else unseen).add(name)
    return {n for n in unseen if not any(n in s for s in seen)}


class Watched(PlaySession):
    """The session `play` runs, with every line it writes checked against the game at that moment."""

    leaks: ClassVar[list[str]] = []
    lines = 0

    def __init__(self, game, seat, read, write, *args, **kw):
        def watch(text: str = "") -> None:
            names = hidden_names(self.game, self.seat)
            for name in names:
                if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text):
                    Watched.leaks.append(f"{name!r} in: {text[:300]!r}")
            Watched.lines += text.count("\n") + 1
            write(text)

        super().__init__(game, seat, read, watch, *args, **kw)


@pytest.mark.parametrize("pack", PACKS)
def test_play_never_prints_a_hidden_cards_name(pack, monkeypatch):
    Watched.leaks, Watched.lines = [], 0
    monkeypatch.setattr(cardsmith.terminal, "PlaySession", Watched)
    # answers: mostly the first option, sometimes the second; `card 1` and `board` on the way
    answers = "".join(("2\n" if i % 3 == 1 else "1\n") + ("card 1\n" if i % 7 == 0 else "")
                      + ("board\n" if i % 11 == 0 else "") for i in range(70)) + "quit!\n"
    res = CliRunner().invoke(main, ["play", pack, "--players", "2", "--seed", "4"], input=answers)
    assert res.exit_code == 0, res.output
    assert "Traceback" not in res.output
    assert Watched.lines > 200  # a real session was scanned
    assert not Watched.leaks, "\n".join(Watched.leaks[:5])


def test_the_scan_catches_a_leak(monkeypatch):
    """The check itself: a view that shows the opponent's hand is caught."""
    pack_game = Game(compile_earth(), 2, 4)
    while (d := pack_game.advance()) is not None and not pack_game.state.zones[("hand", 1)]:
        pack_game.decide(pack_game.ask(d))
    hand = pack_game.state.zones[("hand", 1)]
    names = hidden_names(pack_game, 0)
    leaked = [pack_game.pack.cards[pack_game.state.cards[c].defn].name for c in hand]
    assert any(n in names for n in leaked)


def compile_earth():
    from cardsmith.compiler import compile_pack

    return compile_pack("earth").pack


def session(pack_ref: str, seed: int = 4):
    from cardsmith.compiler import compile_pack

    res = compile_pack(pack_ref)
    game = Game(res.pack, 2, seed)
    texts = CardTexts(pack_ref, 100, res)
    out: list[str] = []
    viewer = Viewer(game, 0, ["you", "random"], prose=texts.source, summary=texts.summary, word=texts.word)
    return game, out, viewer, texts


def test_offered_cards_show_their_cost_and_text():
    game, _, viewer, _ = session("earth")
    while (d := game.advance()) is not None:
        if d.seat == 0 and d.kind == "card" and all(isinstance(o, int) for o in d.options):
            break
        game.decide(game.ask(d))
    text = viewer.prompt(game, d)
    first = game.pack.cards[game.state.cards[d.options[0]].defn]
    line = next(x for x in text.splitlines() if x.startswith("   1. "))
    assert first.name in line and f"({first.id})" not in line  # the name, not the id
    for k, v in first.stats.items():
        assert f"{k} {v}" in text
    assert "[" in text  # an ability's label and its generated text


def test_placing_shows_the_board_with_the_free_cells_numbered():
    game, _, viewer, _ = session("earth", seed=7)
    seen = 0
    while (d := game.advance()) is not None and seen < 2:
        if d.seat == 0 and d.kind == "cell":
            text = viewer.prompt(game, d)
            grid = [x for x in text.splitlines() if "|" in x]
            assert grid, text
            assert all(f"[{i + 1}]" in text for i in range(len(d.options)))
            seen += 1
        # plant whenever asked: option 'yes' (2) for may questions, the first otherwise
        game.decide(1 if d.seat == 0 and d.kind == "may" else game.ask(d) if d.seat else 0)
    assert seen


def test_ids_read_as_names():
    _, _, viewer, _ = session("earth")
    assert viewer.readable("activate Sporecloud Ball (multi)?") == "activate Sporecloud Ball (multicolour)?"
    assert viewer.readable("Mossback Oak (mossback-oak) at row 1, column 2") == "Mossback Oak at row 1, column 2"
    assert "island-pool" not in viewer.readable("take a card from island-pool")
    assert viewer.readable("activate Steppe Winds (red)?") == "activate Steppe Winds (red)?"


def test_an_ambiguous_card_name_is_answered_as_ambiguous():
    game, out, viewer, texts = session("earth")
    d = game.advance()
    s = PlaySession(game, 0, lambda prompt: "", out.append, viewer, texts.card)
    said = s.card(d, "m")
    assert said.startswith("'m' is ambiguous:") and "cards match" in said
    assert s.card(d, "zzzz").startswith("no card 'zzzz' here")
    one = game.pack.cards[0]
    assert s.card(d, one.id).startswith(one.name)


def test_a_reward_is_taken_in_full_without_asking():
    """Earth's activations give rewards 'up to' their amount (partial-rewards): the person is not asked how
    much, the most is taken and said, and `amounts` asks again."""
    args = ["play", "earth", "--players", "2", "--seed", "7", "--agents", "random"]
    res = CliRunner().invoke(main, args, input="2\n" * 80 + "quit!\n")
    assert res.exit_code == 0, res.output
    assert re.search(r"\(took \d+ soil: the most; type `amounts`", res.output), res.output[-3000:]
    asked = CliRunner().invoke(main, args, input="amounts\n" + "2\n" * 80 + "quit!\n")
    assert "rewards' amounts will be asked" in asked.output
    assert "the most; type" not in asked.output and "how many soil" in asked.output
