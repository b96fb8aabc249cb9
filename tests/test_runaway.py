"""Runaway programs: triggers that set each other off, a macro that expands into itself, a cost that can
never be paid. Each is stopped, by the compiler or by the VM's limits, with a diagnostic naming the
card and its source line, and the game state is left consistent (runtime/invariants.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import cardsmith.runtime.vm as vm
from cardsmith.cli import main
from cardsmith.compiler import compile_pack
from cardsmith.runtime import Game
from cardsmith.runtime.invariants import StateChecker
from helpers import VMTEST

UNPAYABLE = 'abilities: {act: "pay 20 gold: gain 5 vp"}'


def make_pack(tmp_path: Path, rules: dict[str, str] | None = None, cards: dict[str, str] | None = None) -> Path:
    """A copy of the vmtest pack with text replaced in rules.yaml and cards.yaml."""
    folder = tmp_path / "runaway"
    shutil.copytree(VMTEST, folder)
    for name, edits in (("rules.yaml", rules or {}), ("cards.yaml", cards or {})):
        text = (folder / name).read_text(encoding="utf-8")
        for old, new in edits.items():
            assert old in text, old
            text = text.replace(old, new)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").split("\n")
    return next(i for i, line in enumerate(lines, start=1) if needle in line)


def play_to_fault(pack, players: int = 2) -> tuple[vm.RuntimeFault, Game]:
    game = Game(pack, players, seed=1)
    checker = StateChecker(pack, game.state)
    with pytest.raises(vm.RuntimeFault) as err:
        game.play()
    # stopped by a limit, not after a long while: work counted in instructions run
    assert game.vm.total_steps <= game.vm.budget + 1
    assert checker.check(game.state) == []  # the state is consistent where the fault stopped it
    return err.value, game


# ----------------------------------------------------------------------------- triggers


@pytest.fixture
def storm(tmp_path):
    return make_pack(tmp_path, rules={'game: "nothing"': 'game: "move all card from deck to row, emit ping"'})


def test_triggers_that_set_each_other_off_are_stopped(storm):
    res = compile_pack(storm)
    assert res.ok
    fault, game = play_to_fault(res.pack)
    text = str(fault)
    assert "R001" in text and "triggers set each other off" in text
    assert "ping" in text and "pong" in text  # both cards are named
    cards = storm / "cards.yaml"
    assert fault.span.file.endswith("cards.yaml")
    assert fault.span.line in (line_of(cards, "id: ping"), line_of(cards, "id: pong"))
    # the storm ran to the trigger-depth limit and no further
    assert len(game.vm.frames) <= vm.MAX_TRIGGER_DEPTH + 5


def test_trigger_storm_names_the_source_line_of_every_card(storm):
    fault, _ = play_to_fault(compile_pack(storm).pack)
    cards = storm / "cards.yaml"
    text = str(fault)
    assert f"cards.yaml:{line_of(cards, 'id: ping')}:" in text and f"cards.yaml:{line_of(cards, 'id: pong')}:" in text


def test_trigger_storm_through_the_cli(storm):
    res = CliRunner().invoke(main, ["simulate", str(storm), "-n", "2", "-p", "2", "--no-progress", "--no-cache"])
    assert res.exit_code == 1
    assert "R001" in res.output and "ping" in res.output and "cards.yaml:" in res.output


def test_a_card_that_triggers_itself(tmp_path):
    folder = make_pack(tmp_path, rules={'game: "nothing"': 'game: "move all card from deck to row, gain 1 wood"'},
                       cards={'"when you gain wood: gain 1 gold"': '"when you gain wood: gain 1 wood"'})
    fault, _ = play_to_fault(compile_pack(folder).pack)
    assert "green-b" in str(fault)
    assert fault.span.line == line_of(folder / "cards.yaml", "id: green-b")


# ----------------------------------------------------------------------------- macros


@pytest.mark.parametrize(("macros", "chain"), [
    ('  "spin $n": "spin $n"\n', "spin $n -> spin $n"),
    ('  "tick $n": "gain $n gold, tock $n"\n  "tock $n": "tick $n"\n', "tick $n -> tock $n -> tick $n"),
])
def test_a_macro_that_expands_into_itself(tmp_path, macros, chain):
    folder = make_pack(tmp_path, rules={'macros:\n': "macros:\n" + macros},
                       cards={'abilities: {act: "gain 1 gold"}': f'abilities: {{act: "{chain.split()[0]} 2"}}'})
    res = compile_pack(folder)
    assert not res.ok
    errors = [d for d in res.diagnostics.errors if d.code == "E106"]
    assert errors, [d.message for d in res.diagnostics.items]
    d = errors[0]
    assert "expands into itself" in d.message and chain in d.message
    # at the call that closes the loop, with a note where the macro is defined
    rules = folder / "rules.yaml"
    assert d.span.file.endswith("rules.yaml") and d.span.line == line_of(rules, macros.split("\n")[-2].strip())
    assert any(s.file.endswith("rules.yaml") and s.line == line_of(rules, macros.split(":")[0].strip())
               for _, s in d.notes)


def test_a_macro_loop_names_the_card_that_uses_it(tmp_path):
    folder = make_pack(tmp_path, rules={'macros:\n': 'macros:\n  "tick $n": "gain $n gold, tock $n"\n'
                                                     '  "tock $n": "tick $n"\n'},
                       cards={'abilities: {act: "gain 1 gold"}': 'abilities: {act: "tick 2"}'})
    res = compile_pack(folder)
    card_line = line_of(folder / "cards.yaml", "id: red-a")
    spans = [d.span for d in res.diagnostics.errors] + [s for d in res.diagnostics.errors for _, s in d.notes]
    assert any(s.file.endswith("cards.yaml") and s.line == card_line for s in spans)


# ----------------------------------------------------------------------------- costs


def test_an_unpayable_cost_in_a_loop_is_stopped_by_the_step_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(vm, "STEP_BUDGET", 100_000)
    folder = make_pack(tmp_path, rules={"  gold: {}": "  gold: {max: 5}",
                                        'game: "nothing"': 'game: "move all card from deck to row, activate act '
                                                           'abilities"'},
                       cards={'abilities: {act: "gain 1 gold"}':
                              'abilities: {act: "repeat until vp >= 1: pay 20 gold: gain 5 vp"}'})
    fault, _ = play_to_fault(compile_pack(folder).pack, players=1)
    assert "step budget" in str(fault)
    assert "red-a" in fault.program  # the card's own loop is named, at its line
    assert fault.span.file.endswith("cards.yaml") and fault.span.line == line_of(folder / "cards.yaml", "id: red-a")


def test_an_unpayable_cost_is_skipped_when_activation_is_optional(tmp_path):
    # Earth's rule: an ability whose cost cannot be paid in full does nothing; the game goes on.
    folder = make_pack(tmp_path, rules={"  gold: {}": "  gold: {max: 5}", "  optional: false": "  optional: true",
                                        'game: "nothing"': 'game: "move all card from deck to row, '
                                                           'repeat 3 times: activate act abilities"'},
                       cards={'abilities: {act: "pay 2 gold: gain 5 vp"}': UNPAYABLE})
    pack = compile_pack(folder).pack
    game = Game(pack, 1, seed=2)
    checker = StateChecker(pack, game.state)
    while (d := game.advance()) is not None:
        assert "Blue A" not in d.prompt  # never offered: it cannot be paid
        game.decide(game.agents[d.seat].choose(game, d))
        assert checker.check(game.state) == []
    assert not any(e[0] == "activate" and e[2] == "blue-a" for e in game.events)


def test_the_compiler_names_a_cost_that_can_never_be_paid(tmp_path):
    folder = make_pack(tmp_path, rules={"  gold: {}": "  gold: {max: 5}"},
                       cards={'abilities: {act: "pay 2 gold: gain 5 vp"}': UNPAYABLE})
    res = compile_pack(folder)
    found = [d for d in res.diagnostics.items if "never" in d.message and d.span.file.endswith("cards.yaml")]
    assert found and found[0].span.line == line_of(folder / "cards.yaml", "id: blue-a")


def test_a_loop_in_the_rules_is_stopped_with_its_line(tmp_path, monkeypatch):
    monkeypatch.setattr(vm, "STEP_BUDGET", 100_000)
    folder = make_pack(tmp_path, rules={'game: "nothing"': 'game: "repeat until gold >= 1: lose 1 gold"'})
    fault, _ = play_to_fault(compile_pack(folder).pack)
    assert "step budget" in str(fault) and fault.program == "game"
    assert fault.span.file.endswith("rules.yaml") and fault.span.line == line_of(folder / "rules.yaml", "game:")


@pytest.mark.slow
def test_the_real_step_budget_stops_a_loop(tmp_path):
    """At the real budget the loop runs exactly that many steps, and its event log stays within a few entries per
    step (the memory a runaway loop can take between two decisions)."""
    folder = make_pack(tmp_path, rules={'game: "nothing"': 'game: "repeat until gold >= 1: lose 1 gold, gain 1 wood"'})
    game = Game(compile_pack(folder).pack, 1, seed=0)
    with pytest.raises(vm.RuntimeFault, match="step budget"):
        game.play()
    assert game.vm.budget <= game.vm.total_steps <= game.vm.budget + 1
    # two events an iteration; a fused loop counts its iterations against the budget too
    assert len(game.events) <= 2 * 2 * game.vm.budget + 2


def test_work_nested_in_each_step_is_budgeted_too(tmp_path):
    """A campaign finding (seed 21, cases 59004 and 61482): Birdscaping's actions.yaml cut short after the
    acquire action's name leaves the flow offering play actions only, none legal; each step of its loop tries
    every hand card's play (a trial on a copy of the game, a payment search), so 250,000 steps took over 10 s of
    CPU. The work nested in the steps between two decisions is counted (conditions, trial instructions, copies,
    payment searches) and stopped at WORK_BUDGET, long before the step budget."""
    folder = tmp_path / "birdscaping"
    shutil.copytree(Path(__file__).resolve().parent.parent / "cards" / "birdscaping", folder)
    actions = folder / "actions.yaml"
    lines = actions.read_text(encoding="utf-8").split("\n")
    cut = next(i for i, line in enumerate(lines) if "id: acquire" in line) + 2  # keep its id and name only
    actions.write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
    res = compile_pack(folder)
    assert res.ok, [d.message for d in res.diagnostics.items]
    game = Game(res.pack, 2, seed=60)
    with pytest.raises(vm.RuntimeFault, match="work budget") as err:
        game.play()
    assert err.value.span.file.endswith(".yaml") and err.value.span.line > 0
    # stopped by the work it did, not by running out of steps: far fewer steps than the step budget
    assert game.vm.total_steps < vm.STEP_BUDGET // 2
