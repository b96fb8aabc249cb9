"""`cardsmith play`: a person plays one seat in the terminal (cardsmith/terminal/, cardsmith/cli/interactive.py).

Driven through its input: click's CliRunner with scripted stdin, the session with a scripted
`read`, and once a real pseudo-terminal."""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler import compile_pack
from cardsmith.present.describe import Describer
from cardsmith.runtime import Game
from cardsmith.runtime.agents import make_agent
from cardsmith.runtime.vm import Decision
from cardsmith.terminal import HumanSeat, PlaySession, Viewer
from cardsmith.terminal.session import HELP
from cardsmith.terminal.view import CardTexts


@pytest.fixture(scope="module")
def earth():
    return compile_pack("earth").pack


def _play(args: list[str], answers: str):
    return CliRunner().invoke(main, ["play", *args], input=answers)


def _result_block(output: str) -> str:
    return output[output.index("== game over"):]


def _totals(output: str) -> dict[str, int]:
    """Each seat's final total, by the seat's name in the result."""
    rows = re.findall(r"^  (seat \d+ \([a-z]+\)) +(-?\d+)", _result_block(output), re.M)
    return {name: int(total) for name, total in rows}


def _first_choice_game(pack, players: int, seed: int, agent: str) -> tuple[Game, int]:
    """The game `cardsmith play` plays when the person always answers 1, run without the terminal:
    the person's seat (1) takes option 0, bots are seeded as the command documents (seed*7919 + seat)."""
    agents = [make_agent(agent, seed * 7919 + i) for i in range(players)]
    game = Game(pack, players, seed, agents)
    asked = 0
    while (d := game.advance()) is not None:
        if d.seat == 0:
            asked += 1
            game.decide(0)
        else:
            game.decide(agents[d.seat].choose(game, d))
    return game, asked


def test_a_short_game_played_to_the_end_answering_1():
    pack = compile_pack("earth-gaia").pack
    game, asked = _first_choice_game(pack, 1, 0, "random")
    r = _play(["earth-gaia"], "1\n" * (asked + 5))
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output
    # Every decision with a choice was put to the person once, with its options numbered from 1.
    assert r.output.count("Type a number from 1 to") == asked
    assert "   1. " in r.output
    result = _result_block(r.output)
    assert _totals(r.output) == {"seat 1 (you)": game.totals()[0]}
    # Solo Earth is played against Gaia, an automa seat that scores (seed 000, ソロモード / ガイアの得点):
    # the result lists Gaia's total beside the person's and names the winner of the two.
    res = game.result()
    assert re.search(rf"^  Gaia +{res.totals[1]}\b", result, re.M)
    assert f"winner: {'Gaia' if res.winners == [1] else 'seat 1 (you)'}" in result


def test_bots_play_the_seats_they_are_given_and_the_winner_is_named(earth):
    game, _ = _first_choice_game(earth, 2, 5, "random")
    r = _play(["earth", "--players", "2", "--seed", "5", "--agents", "random"], "1\n" * 2000)
    assert r.exit_code == 0, r.output
    result = _result_block(r.output)
    assert _totals(r.output) == {"seat 1 (you)": game.totals()[0], "seat 2 (random)": game.totals()[1]}
    winners = " and ".join("seat 1 (you)" if w == 0 else "seat 2 (random)" for w in game.result().winners)
    assert result.rstrip().endswith(winners)
    assert "  seat 2 (random): " in r.output  # bots' moves are logged, one line each


def test_a_bots_card_from_its_hidden_hand_stays_hidden(earth):
    # Earth (seed 000, ゲームの準備): a hand is the player's own; the log may not name a bot's hand card.
    r = _play(["earth", "--players", "2", "--seed", "1", "--agents", "random"], "1\n" * 60 + "quit!\n")
    bot_hand = [line for line in r.output.splitlines() if line.startswith("  seat 2 (random): take a card from hand")]
    assert bot_hand, r.output
    assert all(line.endswith("a card from their hand") for line in bot_hand)


def _session(pack, players: int, seed: int, answer):
    agents: list = [make_agent("random", seed * 7919 + i) for i in range(players)]
    agents[0] = HumanSeat(seed * 7919)
    game = Game(pack, players, seed, agents)
    out: list[str] = []
    session = PlaySession(game, 0, lambda prompt: answer(session), out.append,
                          Viewer(game, 0, [a.name for a in agents]))
    return session, out


def test_undo_restores_the_exact_previous_state_and_takes_back_the_bots_moves(earth):
    seen: list[tuple[str, int, str]] = []  # (view, decisions so far, log hash) at each of the person's decisions
    undone = False

    def answer(s: PlaySession) -> str:
        nonlocal undone
        seen.append((s.view(), len(s.game.decisions), s.game.log_hash()))
        # Answer 1 until the bots have moved between two of the person's decisions, then undo once.
        if not undone and len(seen) >= 2 and seen[-1][1] - seen[-2][1] > 1:
            undone = True
            return "undo"
        return "1" if len(seen) < 40 else "quit!"

    session, out = _session(earth, 2, 1, answer)
    assert session.run() == 0
    i = next(k for k, line in enumerate(out) if line == "undone: back to your previous decision")
    undone = next(k for k in range(1, len(seen)) if seen[k][1] - seen[k - 1][1] > 1)
    before, after = seen[undone - 1], seen[undone + 1]
    assert after == before  # same view text, same decisions made, same event log
    assert out[i + 1] == before[0]  # and the view is shown again
    # The game goes on as it did before the undo: the same answer brings back the same bots' moves.
    assert seen[undone + 2] == seen[undone]


def test_undo_with_nothing_to_undo_says_so(earth):
    r = _play(["earth", "--players", "2"], "undo\nquit!\n")
    assert r.exit_code == 0
    assert "nothing to undo: this is your first decision" in r.output


def test_save_then_load_ends_as_the_uninterrupted_game(tmp_path: Path):
    save = tmp_path / "g.save.json"
    args = ["earth", "--players", "2", "--seed", "3", "--agents", "random"]
    whole = _play(args, "1\n" * 3000)
    assert whole.exit_code == 0, whole.output
    first = _play(args, "1\n" * 12 + f"save {save}\nquit\n\n")
    assert first.exit_code == 0, first.output
    assert "saved after" in first.output and save.is_file()
    rest = _play(["--load", str(save)], "1\n" * 3000)
    assert rest.exit_code == 0, rest.output
    assert "loaded" in rest.output.splitlines()[0] and "you are seat 1" in rest.output.splitlines()[0]
    assert _result_block(rest.output) == _result_block(whole.output)
    # The save is an ordinary save: `cardsmith resume` finishes it (a random bot in the person's seat).
    resumed = CliRunner().invoke(main, ["resume", str(save)])
    assert resumed.exit_code == 0, resumed.output


def test_quit_offers_to_save(tmp_path: Path):
    save = tmp_path / "q.save.json"
    r = _play(["earth-gaia"], f"1\nquit\n{save}\n")
    assert r.exit_code == 0, r.output
    assert "save first?" in r.output and save.is_file()


def test_end_of_input_leaves_cleanly():
    r = _play(["earth-gaia"], "1\n1\n")
    assert r.exit_code == 0
    assert r.output.rstrip().endswith("end of input: leaving the game without saving")
    assert "Traceback" not in r.output


def test_bad_input_re_asks_with_a_hint():
    r = _play(["earth-gaia"], "xyz\n99\n0\n\n1\nquit!\n")
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert "'xyz' is not an option nor a command: type a number from 1 to 2, or ? for help" in lines
    assert "there is no option 99: type a number from 1 to 2, or ? for help" in lines
    assert "there is no option 0: type a number from 1 to 2, or ? for help" in lines
    assert "nothing typed: type a number from 1 to 2, or ? for help" in lines
    # None of them answered: the first decision was put once, then the second after the '1'.
    assert r.output.count("Type a number from 1 to") == 2


def test_card_help_shows_the_generated_text():
    res = compile_pack("earth-gaia")
    d = Describer(res, "en")
    card = res.pack.card("mossback-oak")
    r = _play(["earth-gaia"], "card mossback-oak\n? Mossback\nquit!\n")
    assert r.exit_code == 0
    for ability in d.card(card):
        assert f"[{ability.label}] {ability.text}" in r.output.replace("\n    ", " ")
    assert r.output.count("Mossback Oak (mossback-oak):") == 2  # by id and by the start of its name
    unknown = _play(["earth-gaia"], "card no-such-card\nquit!\n")
    assert "no card 'no-such-card' here" in unknown.output


def test_card_help_by_option_number():
    # The first decision of a 2-player Earth game with this seed that offers cards: ask for option 1's text.
    answers = "1\n" * 3 + "? 1\nquit!\n"  # three 'may flip it' decisions, then 'take a card from hand'
    r = _play(["earth", "--players", "2", "--seed", "1"], answers)
    assert "take a card from hand" in r.output
    first_option = r.output.split("take a card from hand\n")[-1].splitlines()[0]
    name = first_option.split(". ", 1)[1].split(" — ")[0]  # options show names and stats, not ids
    assert re.match(rf"{re.escape(name)} \([a-z0-9-]+\): ", r.output.split("> ? 1\n")[1])


def test_a_tie_names_the_tie_breaker_that_decided_it(earth):
    # Earth (seed 000, 得点計算): on equal VP, more soil in reserve wins, then more cards in hand, ...
    game, _ = _first_choice_game(earth, 2, 2, "random")
    game.state.scores[1] = dict(game.state.scores[0])  # the same VP for both seats
    breaks = game.tiebreaks
    k = next(i for i in range(len(breaks[0])) if breaks[0][i] != breaks[1][i])
    viewer = Viewer(game, 0, ["you", "random"])
    text = viewer.result(game, lambda i: ["your soil", "the number of cards in your hand"][i] if i < 2 else None)
    assert f"tie at {game.totals()[0]} points, broken by tie-breaker {k + 1}" in text
    assert text.rstrip().endswith(viewer.seat_name(0 if breaks[0][k] > breaks[1][k] else 1))


@pytest.mark.parametrize(("args", "message"), [
    (["no-such-pack"], "no pack 'no-such-pack'"),
    (["earth", "--players", "9"], "--players 9: Earth is for 2 to 5 players"),
    (["earth", "--players", "2", "--seat", "3"], "--seat 3: a 2-player game has seats 1 to 2"),
    (["earth", "--agents", "clever"], "unknown agent 'clever'"),
    ([], "give a PACK"),
])
def test_usage_errors_are_one_line_and_exit_2(args: list[str], message: str):
    r = CliRunner().invoke(main, ["play", *args], input="")
    assert r.exit_code == 2
    assert message in r.output
    assert len(r.output.strip().splitlines()) == 1, r.output


def test_a_corrupt_save_is_refused_with_its_line(tmp_path: Path):
    save = tmp_path / "bad.save.json"
    save.write_text('{"cardsmith-save": 1,\n "pack": "earth",\n oops\n', encoding="utf-8")
    r = CliRunner().invoke(main, ["play", "--load", str(save)], input="")
    assert r.exit_code == 2
    assert r.output.strip() == f"cardsmith play: {save}:3: not valid JSON: Expecting property name enclosed in " \
                               "double quotes (column 2)"


def test_load_keeps_the_saves_settings(tmp_path: Path):
    save = tmp_path / "g.save.json"
    _play(["earth-gaia"], f"save {save}\nquit!\n")
    r = CliRunner().invoke(main, ["play", "--load", str(save), "--seed", "4"], input="")
    assert r.exit_code == 2 and "a loaded game keeps the settings of its save" in r.output


def test_no_colour_in_a_pipe():
    r = _play(["earth-gaia"], "quit!\n")
    assert "\x1b[" not in r.output


@pytest.mark.skipif(sys.platform == "win32" or shutil.which("cardsmith", path=str(Path(sys.executable).parent))
                    is None, reason="needs a POSIX pseudo-terminal and the installed command")
def test_in_a_real_terminal_help_answers_and_ctrl_d():
    import pty  # noqa: F401  (POSIX only; os.openpty below)

    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"TERM": "xterm", "COLUMNS": "100"}
    proc = subprocess.Popen([str(Path(sys.executable).parent / "cardsmith"), "play", "earth-gaia"],
                            stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    seen = b""

    def read_until(marker: bytes, start: int = 0, timeout: float = 60) -> None:
        nonlocal seen
        end = time.monotonic() + timeout
        while marker not in seen[start:] and time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    return

    try:
        read_until(b"for help.\r\n> ")
        # Each key waits for the prompt that follows what it makes the game print. \x04 is Ctrl-D.
        for keys, marker in ((b"?\n", b"not shown.\r\n> "), (b"1\n", b"for help.\r\n> "), (b"\x04", b"without saving")):
            mark = len(seen)
            os.write(master, keys)
            read_until(marker, mark)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = seen.decode("utf-8", "replace")
    assert code == 0, text
    assert "\x1b[1m" in text  # colour (bold) on a terminal
    assert "undo" in text and "end of input: leaving the game without saving" in text
    assert "Traceback" not in text


def test_help_gives_examples():
    r = CliRunner().invoke(main, ["play", "--help"])
    assert r.exit_code == 0
    assert "Examples:" in r.output and "cardsmith play --load game.save.json" in r.output


# ---------------------------------------------------------------------- effect-language text shown as English

EARTH_ACTIONS = ["green action", "red action", "blue action", "yellow action"]


@pytest.fixture(scope="module")
def earth_texts():
    res = compile_pack("earth")
    return res.pack, CardTexts("earth", 100, res)


def _until_action_choice(pack, seed: int) -> tuple[Game, Decision]:
    """An Earth game (seat 1 answering 1, a random bot) up to seat 1's first choice of an action."""
    agents = [make_agent("random", seed * 7919 + i) for i in range(2)]
    game = Game(pack, 2, seed, agents)
    while (d := game.advance()) is not None:
        if d.seat == 0 and d.prompt == "choose one" and d.labels == EARTH_ACTIONS:
            return game, d
        game.decide(0 if d.seat == 0 else agents[d.seat].choose(game, d))
    raise AssertionError("the game ended before seat 1 chose an action")


def test_options_in_the_effect_language_are_shown_as_the_packs_english(earth_texts):
    # Earth (seed 000, 手番): a turn is one of four actions; the rules offer them as `choose one` of macro
    # calls, and the glossary gives each call the words a player reads.
    pack, texts = earth_texts
    game, d = _until_action_choice(pack, 3)
    lines = Viewer(game, 0, ["you", "random"], prose=texts.source).prompt(game, d).splitlines()
    assert lines[0] == "seat 1 (you): choose one"
    assert lines[1:5] == ["   1. Take the planting action (green)", "   2. Take the composting action (red)",
                          "   3. Take the watering action (blue)", "   4. Take the growing action (yellow)"]
    # Without the describer the same decision shows the VM's words.
    assert Viewer(game, 0, ["you", "random"]).prompt(game, d).splitlines()[1] == "   1. green action"


def test_a_terraforming_mars_option_reads_as_english():
    # Electro Catapult's action (corporate era): spend a plant or a steel for 7 M€. The labels are the ones
    # its compiled `choose one` gives the VM.
    res = compile_pack("terraforming-mars-corporate-era")
    labels = next(op[1] for op in res.pack.card("electro-catapult").abilities["action"].ops if op[0] == "CHOOSE")
    assert labels == ["(pay 1 plant: gain 7 megacredit)", "(pay 1 steel: gain 7 megacredit)"]
    game = Game(res.pack, 1, 0, [HumanSeat()])
    d = Decision(0, "option", "choose one", [0, 1], labels)
    viewer = Viewer(game, 0, ["you"], prose=CardTexts("terraforming-mars-corporate-era", 100, res).source)
    assert viewer.prompt(game, d).splitlines()[1:3] == ["   1. Pay 1 plant: gain 7 M€",
                                                       "   2. Pay 1 steel: gain 7 M€"]


def test_text_that_does_not_parse_is_shown_as_it_is(earth_texts):
    pack, texts = earth_texts
    game = Game(pack, 2, 0, [HumanSeat(), make_agent("random", 1)])
    viewer = Viewer(game, 0, ["you", "random"], prose=texts.source)
    # 'gain 2 sprout' parses but sprouts are pieces, not a resource; 'dance a jig' names no macro; 'gain ((' is
    # no sentence at all. Each stays as the VM words it; the option that reads is English.
    d = Decision(0, "option", "choose one", [0, 1, 2, 3], ["gain 2 soil", "gain 2 sprout", "dance a jig", "gain (("])
    assert viewer.prompt(game, d).splitlines()[1:5] == ["   1. Gain 2 soil", "   2. gain 2 sprout",
                                                       "   3. dance a jig", "   4. gain (("]
    # A `may` whose body does not read keeps its prompt; one that reads becomes a question.
    assert viewer.texts(Decision(0, "may", "may gain ((", [False, True], ["no", "yes"])).prompt == "may gain (("
    assert viewer.texts(Decision(0, "may", "may draw 1", [False, True], ["no", "yes"])).prompt == "Draw 1 card?"
    # Prompts that are not effect-language source are never parsed (an activation order, a card to take).
    order = Decision(0, "option", "red: island and climate before or after tableau", [0, 1],
                     ["island and climate first", "tableau first"])
    assert viewer.texts(order).labels == ["island and climate first", "tableau first"]


def test_raw_shows_the_source_and_a_number_still_picks_the_same_option(earth_texts):
    pack, texts = earth_texts
    game, d = _until_action_choice(pack, 3)
    lines = iter(["?", "raw", "raw", "2"])
    out: list[str] = []
    session = PlaySession(game, 0, lambda prompt: next(lines), out.append,
                          Viewer(game, 0, ["you", "random"], prose=texts.source))
    assert any(line.startswith("  raw ") for line in HELP.splitlines())
    choice = session.ask(d)
    _board, first, help_text, raw_said, raw_view, prose_said, prose_view = out  # each toggle says so, then re-asks
    assert help_text == HELP
    assert "   2. Take the composting action (red)" in first.splitlines()
    assert raw_said.startswith("effect-language source shown as it is")
    assert "   2. red action" in raw_view.splitlines()
    assert prose_said == "effect-language source shown as English"
    assert prose_view == first
    # '2' picks the second option whatever its text: the VM's red action.
    assert choice == 1 and d.labels[choice] == "red action"
    session.answer(choice)
    game.advance()
    assert game.decisions[-1] == (0, "option", 4, 1)
    assert ("choose", 0, "red action") in game.events  # the game's log names the option the VM took


def test_a_bots_line_names_the_card_it_speaks_of(earth):
    # Earth (seed 000, ゲームの準備): each player may flip their island, climate and ecosystem card; the bot's
    # line says which card 'it' is. Those cards lie face up, so the person may see them.
    r = _play(["earth", "--players", "2", "--seed", "7"], "1\n" * 30 + "quit!\n")
    flips = [line for line in r.output.splitlines() if line.startswith("  seat 2 (greedy): Flip it to its other side?")]
    assert len(flips) == 3, r.output
    names = {c.name for c in earth.cards}
    for line in flips:
        assert re.fullmatch(r"  seat 2 \(greedy\): Flip it to its other side\? (no|yes) \(it: (.+)\)", line), line
        assert line.rsplit("(it: ", 1)[1][:-1] in names
    # Generated English speaks to whoever decides: in a bot's line it speaks of the bot.
    assert "  seat 2 (greedy): Plant a card from their hand, paying its cost in soil? yes" in \
        r.output.replace("\n      ", " ")


def test_a_bots_line_keeps_a_hidden_card_hidden():
    # Terraforming Mars (seed 003, 研究フェイズ): a player keeps or drops each drawn card unseen by the others.
    # The bot's line speaks of the card ('it') but may not name it.
    res = compile_pack("terraforming-mars")
    agents = [make_agent("random", 7919 + i) for i in range(2)]
    game = Game(res.pack, 2, 1, agents)
    viewer = Viewer(game, 0, ["you", "random"], prose=CardTexts("terraforming-mars", 100, res).source)
    lines = []
    while len(lines) < 3 and (d := game.advance()) is not None:
        choice = agents[d.seat].choose(game, d)
        if d.seat == 1 and d.prompt == "choose one" and d.labels[0] == "keep the card":
            lines.append(viewer.bot_choice(game, d, choice))
        game.decide(choice)
    assert len(lines) == 3
    for line in lines:
        assert re.fullmatch(r"  seat 2 \(random\): choose one: (Buy it for 3 M€|Discard it) "
                            r"\(it: a card from their drawn\)", line), line
