"""The search agent (runtime/search.py): deterministic for a seed with an iteration budget, usable by name in
every command that takes agents, and it decides on the observation alone."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.runtime import Game
from cardsmith.runtime.agents import AgentSpec, GreedyAgent, make_agent
from cardsmith.runtime.search import SearchAgent

DECISIONS = 80


def opening(pack, seed: int, agents) -> Game:
    """The first DECISIONS decisions of a two-player game, logged."""
    game = Game(pack, 2, seed, agents)
    for _ in range(DECISIONS):
        d = game.advance()
        if d is None:
            break
        game.decide(game.ask(d))
    return game


@pytest.mark.parametrize("pack", ["birdscaping", "earth"])
def test_same_seed_same_game_byte_for_byte(pack, compiled):
    p = compiled(pack)
    a = opening(p, 5, [make_agent("search:8", 11), GreedyAgent(12)])
    b = opening(p, 5, [make_agent("search:8", 11), GreedyAgent(12)])
    assert a.log_lines() == b.log_lines()
    assert a.agents[0].spent == b.agents[0].spent > 0
    c = opening(p, 5, [make_agent("search:8", 99), GreedyAgent(12)])
    assert c.log_lines() != a.log_lines()  # the agent's seed matters


def test_budgets_by_name():
    assert AgentSpec("search:400").kw == {"iterations": 400}
    assert AgentSpec("search:0.5s").kw == {"seconds": 0.5}
    assert isinstance(make_agent("search", 1), SearchAgent)
    for bad, said in [("search:lots", "is a number of iterations"), ("greedy:4", "takes no budget"),
                      ("seach", "unknown agent 'seach'")]:
        with pytest.raises(ValueError, match=said):
            AgentSpec(bad)


def test_a_time_budget_plays(compiled):
    game = opening(compiled("birdscaping"), 2, [make_agent("search:0.01s", 1), make_agent("random", 2)])
    assert game.agents[0].spent > 0


def test_simulate_takes_the_search_agent():
    res = CliRunner().invoke(main, ["simulate", "birdscaping", "-n", "1", "--agents", "search:4,random", "--json",
                                    "--max-decisions", "100"])
    assert res.exit_code == 0, res.output
    assert '"search"' in res.output


def test_iterations_grow_with_the_options(compiled):
    """At least three samples per option: a budget below that is raised."""
    p = compiled("birdscaping")
    game = Game(p, 2, 3)
    while (d := game.advance()) is not None and len(d.options) < 4:
        game.decide(game.ask(d))
    agent = SearchAgent(1, iterations=1)
    obs = game.observe(d.seat)
    agent.choose(obs, obs.decision)
    assert agent.spent >= len(d.options)


def test_looking_two_turns_ahead_plays_deterministically(compiled):
    """turns=2: an iteration goes on over the other seats' turn (played at random) to the end of the seat's next."""
    p = compiled("birdscaping")
    runs = [opening(p, 9, [SearchAgent(4, iterations=6, turns=2), GreedyAgent(5)]) for _ in range(2)]
    assert runs[0].log_lines() == runs[1].log_lines() and runs[0].agents[0].spent > 0


def _picture(game: Game) -> tuple:
    """Everything a look-ahead could wrongly change in the game it looks at."""
    st = game.state
    cards = tuple((c.id, c.defn, c.zone, c.seat, c.pos, tuple(sorted(c.pieces.items())), tuple(sorted(c.flags)),
                   c.face_down) for c in st.cards)
    return (cards, sorted(st.zones.items()), [sorted(c.items()) for c in st.counters], sorted(st.globals.items()),
            [sorted(s.items()) for s in st.scores], st.rng.getstate(), sorted(st.known.items()), st.turn,
            len(game.decisions))


@pytest.mark.parametrize("pack", ["earth", "terraforming-mars", "living-forest", "birdscaping"])
def test_looking_ahead_leaves_the_game_as_it_was(pack, compiled):
    """The agents look ahead on copies that share the game's cards until they change one (GameState.fork): a
    change that missed the copy-on-write would land in the real game. After every answer, the game is what it
    was before the agent was asked."""
    game = Game(compiled(pack), 2, 3, [make_agent("search:6", 1), GreedyAgent(2)])
    for _ in range(60):
        d = game.advance()
        if d is None:
            break
        before = _picture(game)
        choice = game.ask(d)
        assert _picture(game) == before, f"asking seat {d.seat} '{d.prompt}' changed the game"
        game.decide(choice)


def _leaves(pack, monkeypatch) -> list[tuple[int, bool]]:
    """Where the search agent's iterations judge Earth's first choice of an action (000 ターンですること: the
    active player picks one of four actions, every player then takes part in it): for each leaf, whether the
    turn had passed and whether the game was over."""
    import cardsmith.runtime.search as search

    seen: list[tuple[int, bool]] = []
    real = search.margins

    def spy(g, in_place=False):
        seen.append((g.state.turn, g.phase == "done"))
        return real(g, in_place)

    monkeypatch.setattr(search, "margins", spy)
    game = Game(pack, 2, 3)
    while (d := game.advance()) is not None and not (d.prompt == "choose one" and len(d.options) == 4):
        game.decide(game.ask(d))
    turn = game.state.turn
    obs = game.observe(d.seat)
    SearchAgent(1, iterations=12).choose(obs, obs.decision)
    return [(t - turn, done) for t, done in seen]


def test_shared_turns_judge_an_action_after_it_resolved(compiled, monkeypatch):
    """Earth declares shared turns and a look-ahead of one turn (rules.yaml statistics): every leaf comes after
    the turn passed, when the action and everyone's abilities have resolved. Without the declaration a leaf
    comes at the other player's first answer to the action, before anything of it was done."""
    import dataclasses

    earth = compiled("earth")
    assert earth.statistics["shared-turns"] is True and earth.statistics["look-ahead"] == 1
    leaves = _leaves(earth, monkeypatch)
    assert leaves and all(passed == 1 or done for passed, done in leaves)
    plain = dataclasses.replace(earth, statistics={**earth.statistics, "shared-turns": False})
    assert any(passed == 0 for passed, _ in _leaves(plain, monkeypatch))
