"""Many seeded games of one pack, and their statistics.

Game i uses seed `seed + i`, so any game of a run can be replayed on its own, and the
results do not depend on how the games are spread over workers (runtime/parallel.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from statistics import mean

from cardsmith.bytecode import CompiledPack

from .agents import make_agent
from .game import Game, GameResult


def play_one(pack: CompiledPack, players: int, seed: int, agent_names: list[str],
             params: dict | None = None, max_decisions: int | None = None,
             log_dir: str | Path | None = None) -> GameResult:
    """One seeded game. The result also carries `played`: per seat, the ids of the cards that
    entered one of that player's in-play zones during the game (from the event log), and
    `shared_counters`: the shared counters at the end (a round or generation marker). With
    `log_dir`, the game's event log is written there as game-SEED.jsonl."""
    agents = [make_agent(agent_names[i % len(agent_names)], seed * 7919 + i) for i in range(players)]
    kw = {"max_decisions": max_decisions} if max_decisions else {}
    game = Game(pack, players, seed, agents, params, log=True, **kw)
    result = game.play()
    result.played = played_cards(pack, game.events or [], players)
    result.held = held_cards(pack, game.events or [], players)
    result.shared_counters = dict(game.state.globals)  # final values: rounds or generations, for reports
    if log_dir is not None:
        from .replay import log_text

        folder = Path(log_dir)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"game-{seed}.jsonl").write_text(log_text(game), encoding="utf-8")
    return result


def played_cards(pack: CompiledPack, events: list, players: int) -> list[list[str]]:
    """Per seat, the sorted ids of the cards that entered that player's in-play (or `played`) zones.

    The event log records every move as ("move", card id, from zone, from seat, to zone, to seat)."""
    in_play = {z for z, d in pack.zones.items() if d.get("in-play") or d.get("played")}
    played: list[set[str]] = [set() for _ in range(players)]
    for e in events:
        if e[0] == "move" and e[4] in in_play and 0 <= e[5] < players:
            played[e[5]].add(e[1])
    return [sorted(p) for p in played]


def held_cards(pack: CompiledPack, events: list, players: int) -> list[list[str]]:
    """Per seat, the sorted ids of the cards that came into one of that player's zones (drawn, dealt, played)."""
    held: list[set[str]] = [set() for _ in range(players)]
    for e in events:
        if e[0] == "move" and 0 <= e[5] < players:
            held[e[5]].add(e[1])
    return [sorted(h) for h in held]


def simulate(pack: CompiledPack, games: int, players: int, seed: int, agent_names: list[str],
             params: dict | None = None, max_decisions: int | None = None,
             progress: Callable[[int], None] | None = None, log_dir: str | Path | None = None) -> list[GameResult]:
    results = []
    for i in range(games):
        results.append(play_one(pack, players, seed + i, agent_names, params, max_decisions, log_dir))
        if progress:
            progress(1)
    return results


def _rate(wins: float, count: int) -> float:
    return round(wins / count, 4) if count else 0


def summarize(results: list[GameResult], players: int) -> dict:
    """Win rate and mean score per seat and per agent; ties share the win.

    `cards` gives, for each card some player played (see `play_one`), how often the player who
    played it won ("played": seat-games in which that seat played it) against every other
    seat-game of the run ("not_played"), with the counts behind each rate."""
    seats = []
    automa = getattr(results[0], "automa", []) if results else []
    for s in range(players + len(automa)):  # the automa seats after the players: they win and lose too
        wins = sum(1 / len(r.winners) for r in results if s in r.winners)
        seat = {"seat": s, "win_rate": round(wins / len(results), 4) if results else 0,
                "mean_score": round(mean(r.totals[s] for r in results), 3) if results else 0}
        if s >= players:
            seat["automa"] = automa[s - players]
        seats.append(seat)
    agents: dict[str, dict] = {}
    for r in results:
        for s, name in enumerate(r.agents):
            a = agents.setdefault(name, {"seats_played": 0, "wins": 0.0, "score_sum": 0})
            a["seats_played"] += 1
            a["wins"] += 1 / len(r.winners) if s in r.winners else 0
            a["score_sum"] += r.totals[s]
    per_agent = {name: {"seats_played": a["seats_played"], "win_rate": round(a["wins"] / a["seats_played"], 4),
                        "mean_score": round(a["score_sum"] / a["seats_played"], 3)}
                 for name, a in sorted(agents.items())}
    return {
        "games": len(results),
        "capped": sum(1 for r in results if r.capped),
        "mean_turns": round(mean(r.turns for r in results), 2) if results else 0,
        "mean_decisions": round(mean(r.decisions for r in results), 2) if results else 0,
        "seats": seats,
        "agents": per_agent,
        "cards": card_stats(results),
    }


def card_stats(results: list[GameResult], field: str = "played") -> dict[str, dict]:
    """For each played card: the holder's wins when it was played, and every other seat's wins. With
    `field="held"`: when it came to the seat at all (drawn, dealt or played)."""
    played_n: dict[str, int] = {}
    played_wins: dict[str, float] = {}
    seat_games = 0
    total_wins = 0.0
    for r in results:
        share = 1 / len(r.winners) if r.winners else 0
        for seat, cards in enumerate(getattr(r, field, None) or []):
            won = share if seat in r.winners else 0
            for cid in cards:
                played_n[cid] = played_n.get(cid, 0) + 1
                played_wins[cid] = played_wins.get(cid, 0) + won
        if getattr(r, field, None) is not None:
            seat_games += r.players
            total_wins += share * sum(1 for w in r.winners if w < r.players)  # the players' seats only
    out = {}
    for cid in sorted(played_n):
        n, w = played_n[cid], played_wins[cid]
        other_n, other_w = seat_games - n, total_wins - w
        out[cid] = {"played": {"count": n, "wins": round(w, 4), "win_rate": _rate(w, n)},
                    "not_played": {"count": other_n, "wins": round(other_w, 4), "win_rate": _rate(other_w, other_n)}}
    return out
