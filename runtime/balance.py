"""Balance statistics of a simulation: win rates with confidence intervals, per seat, agent and card.

Plain numbers only (no plotting, no HTML): `present/balance_report.py` draws and writes them.
Ties share the win (a game won by two players gives each half a win), so win counts may be
fractional; the Wilson interval is defined for any proportion and stays inside [0, 1].
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import mean, median

from cardsmith.bytecode import CompiledPack

from .game import GameResult
from .simulate import card_stats
from .state import automa_seats

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


def wilson(wins: float, count: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of the proportion wins/count; (0, 1) when there is no data."""
    if count <= 0:
        return 0.0, 1.0
    p = wins / count
    denom = 1 + z * z / count
    centre = (p + z * z / (2 * count)) / denom
    half = z * math.sqrt(p * (1 - p) / count + z * z / (4 * count * count)) / denom
    # Rounding can put an end a hair past the observed rate at p = 0 or 1; the interval always holds it.
    return max(0.0, min(centre - half, p)), min(1.0, max(centre + half, p))


@dataclass(frozen=True)
class Rate:
    """Wins out of a number of seat-games, with its 95% Wilson interval."""

    wins: float
    count: int

    @property
    def rate(self) -> float:
        return self.wins / self.count if self.count else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.count)

    @property
    def low(self) -> float:
        return self.interval[0]

    @property
    def high(self) -> float:
        return self.interval[1]


def difference(a: Rate, b: Rate) -> tuple[float, float, float]:
    """a.rate - b.rate with Newcombe's interval (built from the two Wilson intervals)."""
    d = a.rate - b.rate
    (al, ah), (bl, bh) = a.interval, b.interval
    return (d, d - math.sqrt((a.rate - al) ** 2 + (bh - b.rate) ** 2),
            d + math.sqrt((ah - a.rate) ** 2 + (b.rate - bl) ** 2))


@dataclass(frozen=True)
class Group:
    """A seat or an agent: its wins and its scores."""

    label: str
    rate: Rate
    scores: tuple[int, ...]

    @property
    def mean_score(self) -> float:
        return mean(self.scores) if self.scores else 0.0

    @property
    def median_score(self) -> float:
        return median(self.scores) if self.scores else 0.0


@dataclass(frozen=True)
class CardBalance:
    """How the holder of a card fared in the seat-games where it was played, and in all others."""

    id: str
    name: str
    type: str | None
    played: Rate
    not_played: Rate
    back_of: str | None = None  # the other face's id, when this is the back of a double-sided card

    @property
    def difference(self) -> tuple[float, float, float]:
        return difference(self.played, self.not_played)


@dataclass
class Balance:
    """Everything the balance report shows, computed from the results of one simulation."""

    pack_id: str
    pack_name: str
    version: str
    players: int
    seed: int
    agents: list[str]
    params: dict
    games: int
    capped: int
    seats: list[Group]
    by_agent: list[Group]
    cards: list[CardBalance]
    lengths: dict[str, list[int]] = field(default_factory=dict)  # "turns" and the pack's length counter
    type_names: dict[str, str] = field(default_factory=dict)  # card type -> its name for people
    played_types: list[str] | None = None  # the card types counted (rules.yaml statistics.played-types)

    def type_name(self, t: str | None) -> str:
        return self.type_names.get(t or "", (t or "no type").replace("-", " "))

    @property
    def played_types_text(self) -> str:
        """The card types counted, by name ('flora, terrain and event'), or '' when all are."""
        if not self.played_types:
            return ""
        names = [self.type_name(t) for t in self.played_types]
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"

    @property
    def mixed_seats(self) -> bool:
        """Seats hold different agents: a seat's win rate then mixes the seat with the agent's strength."""
        return len({self.agents[s % len(self.agents)] for s in range(self.players)}) > 1

    @property
    def seat_games(self) -> int:
        return self.games * self.players

    @property
    def never_played(self) -> list[CardBalance]:
        return [c for c in self.cards if c.played.count == 0]

    def never_played_by_type(self) -> list[tuple[str, int, int]]:
        """(card type, cards never played, cards of that type): types whose cards are never played
        into a player's zones (shared goals, say) show up as a whole."""
        out = []
        for t in sorted({c.type or "" for c in self.cards}):
            of_type = [c for c in self.cards if (c.type or "") == t]
            never = sum(1 for c in of_type if c.played.count == 0)
            if never:
                out.append((self.type_name(t or None), never, len(of_type)))
        return out

    def length_summary(self) -> list[tuple[str, int, float, float, int]]:
        """(measure, min, median, mean, max) for each game-length measure."""
        return [(name, min(v), median(v), mean(v), max(v)) for name, v in self.lengths.items() if v]

    def ranked(self, min_plays: int) -> list[CardBalance]:
        """Cards played at least `min_plays` times, the largest holder advantage first."""
        cards = [c for c in self.cards if c.played.count >= min_plays and c.not_played.count]
        return sorted(cards, key=lambda c: (-c.difference[0], c.id))


def analyze(pack: CompiledPack, results: list[GameResult], players: int, seed: int, agents: list[str],
            params: dict | None = None) -> Balance:
    """The balance statistics of `results` (games of `pack` with `players` seats, in seed order)."""
    games = len(results)
    seat_agents = [agents[s % len(agents)] for s in range(players)]  # as runtime/simulate.py seats them
    mixed = len(set(seat_agents)) > 1
    seats = []
    automa = automa_seats(pack, players)
    for s in range(players + len(automa)):  # automa seats (a solo game's AI) win and lose too
        wins = sum(1 / len(r.winners) for r in results if s in r.winners)
        if s < players:
            label = f"seat {s + 1}" + (f" ({seat_agents[s]})" if mixed else "")
        else:
            label = automa[s - players].get("name") or automa[s - players]["id"]
        seats.append(Group(label, Rate(wins, games), tuple(r.totals[s] for r in results)))
    agent_wins: dict[str, float] = {}
    agent_scores: dict[str, list[int]] = {}
    for r in results:
        for s, name in enumerate(r.agents):
            agent_wins[name] = agent_wins.get(name, 0.0) + (1 / len(r.winners) if s in r.winners else 0.0)
            agent_scores.setdefault(name, []).append(r.totals[s])
    by_agent = [Group(name, Rate(agent_wins[name], len(agent_scores[name])), tuple(agent_scores[name]))
                for name in sorted(agent_scores)]
    stats = card_stats(results)
    seat_games = games * players
    # the players' shares of each game's win (an automa seat's share is nobody's card)
    total_wins = sum(sum(1 for w in r.winners if w < players) / len(r.winners) for r in results if r.winners)
    cards = []
    played_types = pack.statistics.get("played-types")  # the cards a player plays; all when not declared
    for c in pack.cards:
        if played_types is not None and c.type not in played_types:
            continue
        st = stats.get(c.id)
        if st:
            played = Rate(st["played"]["wins"], st["played"]["count"])
            other = Rate(st["not_played"]["wins"], st["not_played"]["count"])
        else:
            played, other = Rate(0.0, 0), Rate(total_wins, seat_games)
        cards.append(CardBalance(c.id, c.name, c.type, played, other, c.back if c.is_back else None))
    lengths = {"turns": [r.turns for r in results]}
    length = pack.statistics.get("length")  # declared by the pack: rules.yaml statistics.length
    if length is not None:
        name = pack.counters.get(length, {}).get("names", {}).get("en", length.replace("-", " "))
        lengths[f"{name}s" if not name.endswith("s") else name] = \
            [getattr(r, "shared_counters", {}).get(length, 0) for r in results]
    elif players > 1:  # no measure declared: a round is every player's turn once
        lengths["rounds (turns / players)"] = [-(-r.turns // players) for r in results]
    type_names = {t: d.get("names", {}).get("en", t.replace("-", " ")) for t, d in pack.card_types.items()}
    return Balance(pack.id, pack.name, pack.version, players, seed, list(agents), dict(params or {}), games,
                   sum(1 for r in results if r.capped), seats, by_agent, cards, lengths, type_names,
                   list(played_types) if played_types is not None else None)


# ----------------------------------------------------------------------------- what-if comparisons


@dataclass(frozen=True)
class CardChange:
    """One changed card in the original pack and in the variant, over the same seeds and agents.

    The card's win rate is that of the seats it came to (drawn, dealt or played): the same seed deals the
    same cards until play differs, so the change moves this rate by what the card does for its holder. The
    win rate when played is shown too, but it mixes in who gets to play it: a card made free is also
    played by players who are behind."""

    id: str
    name: str
    base: Rate  # the seats the card came to
    variant: Rate
    base_played: Rate  # the seats that played it
    variant_played: Rate
    base_plays: Rate  # seat-games in which it was played, out of all seat-games
    variant_plays: Rate

    @property
    def difference(self) -> tuple[float, float, float]:
        """Variant minus original win rate of the card's holders, with its 95% interval (Newcombe)."""
        return difference(self.variant, self.base)

    @property
    def played_difference(self) -> tuple[float, float, float]:
        return difference(self.variant_played, self.base_played)

    @property
    def plays_difference(self) -> tuple[float, float, float]:
        return difference(self.variant_plays, self.base_plays)


@dataclass
class Comparison:
    """A balance run of a pack and of a variant of it, seed for seed."""

    pack_id: str
    pack_name: str
    variant: str  # the changes as given, or the variant pack's folder
    players: int
    seed: int
    agents: list[str]
    games: int
    cards: list[CardChange]
    seats: list[tuple[str, Rate, Rate]]  # per seat: label, original and variant win rate
    identical: int  # games that played out exactly alike (same event log) in both


def compare(base_pack: CompiledPack, base: list[GameResult], variant_pack: CompiledPack, variant: list[GameResult],
            players: int, seed: int, agents: list[str], cards: list[str], described: str) -> Comparison:
    """The changed `cards` in `variant` against `base` (results of the same seeds and agents)."""
    games = len(base)
    seat_games = games * players
    none = {"wins": 0.0, "count": 0}

    def rate(stats: dict, cid: str) -> Rate:
        x = stats.get(cid, {}).get("played", none)
        return Rate(x["wins"], x["count"])

    held = card_stats(base, "held"), card_stats(variant, "held")
    played = card_stats(base), card_stats(variant)
    out = []
    for cid in cards:
        c = variant_pack.card(cid) or base_pack.card(cid)
        pb, pv = rate(played[0], cid), rate(played[1], cid)
        out.append(CardChange(cid, c.name if c else cid, rate(held[0], cid), rate(held[1], cid), pb, pv,
                              Rate(pb.count, seat_games), Rate(pv.count, seat_games)))
    seats = []
    automa = automa_seats(base_pack, players)
    for s in range(players + len(automa)):
        label = f"seat {s + 1}" if s < players else (automa[s - players].get("name") or automa[s - players]["id"])
        wins = [sum(1 / len(r.winners) for r in rs if s in r.winners) for rs in (base, variant)]
        seats.append((label, Rate(wins[0], games), Rate(wins[1], games)))
    identical = sum(1 for x, y in zip(base, variant, strict=True) if x.log_hash == y.log_hash)
    return Comparison(base_pack.id, base_pack.name, described, players, seed, list(agents), games, out, seats,
                      identical)
