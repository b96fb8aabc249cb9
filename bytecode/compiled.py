"""The compiled form of a pack: plain data the runtime reads, versioned, JSON-serialisable.

Nothing here refers to the parser or to YAML: the runtime needs only this module and
`opcodes`. Spans are kept in one table so a runtime fault can name the card file and line.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .opcodes import BY_NAME, BYTECODE_VERSION
from .spans import Span


@dataclass
class Code:
    """One compiled program: instructions and, per instruction, an index into the span table."""

    name: str
    ops: list[list[Any]] = field(default_factory=list)
    spans: list[int] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"name": self.name, "ops": self.ops, "spans": self.spans}

    @staticmethod
    def from_json(d: dict | None) -> Code | None:
        if d is None:
            return None
        return Code(d["name"], [list(op) for op in d["ops"]], list(d["spans"]))


@dataclass
class TriggerDef:
    subject: str  # you | any | opponent
    verb: str
    name: str | None  # the resource/piece/event object, when the pattern names one
    filters: list | None  # a card filter list, when the pattern is about a card
    code: Code

    def to_json(self) -> dict:
        return {**{k: v for k, v in asdict(self).items() if k != "code"}, "code": self.code.to_json()}


@dataclass
class ClaimDef:
    """`as soon as COND [for each QUERY]: BODY`: checked whenever something it reads changes; runs once per
    player (and card of the query) the moment the condition holds. `players` orders ties: [kind, start]
    of a player loop (rules-level claims), or None for a card's own (its owner only)."""

    cond: Code
    query: dict | None
    code: Code
    players: list | None = None

    def to_json(self) -> dict:
        return {"cond": self.cond.to_json(), "query": self.query, "code": self.code.to_json(), "players": self.players}

    @staticmethod
    def from_json(d: dict) -> ClaimDef:
        return ClaimDef(Code.from_json(d["cond"]), d["query"], Code.from_json(d["code"]), d.get("players"))


@dataclass
class ModifierDef:
    stat: str
    query: dict
    amount: int


@dataclass
class CardDef:
    id: str
    name: str
    type: str | None
    span: int
    number: str | None = None
    original: bool = False
    copies: int = 1  # the most copies a game uses (the box); by player count in copies_by_players when given
    copies_by_players: dict[str, int] = field(default_factory=dict)  # "2" -> copies in a 2-player game
    names: dict[str, str] = field(default_factory=dict)
    traits: dict[str, list[str]] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)
    abilities: dict[str, Code] = field(default_factory=dict)
    checks: dict[str, Code] = field(default_factory=dict)  # timing -> can its cost be paid?
    conditions: dict[str, Code] = field(default_factory=dict)  # condition timings and 'requires'
    triggers: list[TriggerDef] = field(default_factory=list)
    modifiers: list[ModifierDef] = field(default_factory=list)
    # 'prevent ...' of ongoing abilities: {"names": [...], "opponents": bool, "scope": "this" | "you"}
    prevents: list[dict] = field(default_factory=list)
    claims: list[ClaimDef] = field(default_factory=list)  # 'as soon as ...' of ongoing abilities
    # 'pay ... with ...' of ongoing abilities: payment sources live while the card is in play, for its owner
    payments: list[dict] = field(default_factory=list)
    back: str | None = None  # the id of the other side of a double-sided card
    is_back: bool = False
    pack: str = ""

    def to_json(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if k not in ("abilities", "checks", "conditions", "triggers",
                                                                 "claims")
             and (k != "payments" or v)}  # a card without payment sources reads as it did before them
        d["claims"] = [c.to_json() for c in self.claims]
        d["abilities"] = {k: c.to_json() for k, c in self.abilities.items()}
        d["checks"] = {k: c.to_json() for k, c in self.checks.items()}
        d["conditions"] = {k: c.to_json() for k, c in self.conditions.items()}
        d["triggers"] = [t.to_json() for t in self.triggers]
        return d

    @staticmethod
    def from_json(d: dict) -> CardDef:
        c = CardDef(**{k: v for k, v in d.items() if k not in ("abilities", "checks", "conditions", "triggers",
                                                                 "modifiers", "claims")})
        c.claims = [ClaimDef.from_json(x) for x in d.get("claims", [])]
        c.abilities = {k: Code.from_json(v) for k, v in d["abilities"].items()}
        c.checks = {k: Code.from_json(v) for k, v in d["checks"].items()}
        c.conditions = {k: Code.from_json(v) for k, v in d["conditions"].items()}
        c.triggers = [TriggerDef(t["subject"], t["verb"], t["name"], t["filters"], Code.from_json(t["code"]))
                      for t in d["triggers"]]
        c.modifiers = [ModifierDef(**m) for m in d["modifiers"]]
        return c


@dataclass
class CompiledPack:
    id: str
    name: str
    version: str
    chain: list[str]
    players: tuple[int, int]
    resources: dict[str, dict]
    counters: dict[str, dict]
    params: dict[str, Any]
    zones: dict[str, dict]
    card_types: dict[str, dict]
    traits: dict[str, list[str]]
    stats: dict[str, int]
    pieces: dict[str, dict]
    flags: list[str]
    timings: dict[str, dict]
    activation: dict
    cards: list[CardDef]
    setup: Code | None
    game: Code | None
    scoring: list[dict]
    tiebreakers: list[Code]
    zone_on_empty: dict[str, Code]
    piece_when_full: dict[str, Code]
    spans: list[Span]
    names: dict[str, Any] = field(default_factory=dict)
    # {"length": shared counter measuring game length, "played-types": card types counted as played}
    statistics: dict[str, Any] = field(default_factory=dict)
    ranking: list[Code] = field(default_factory=list)  # empty: total score, then the tiebreakers
    automa: list[dict] = field(default_factory=list)  # [{"id", "name", "names"}]: seats after the players
    # window name -> [{"label": text, "guard": Code | None, "code": Code}]: what 'open window NAME' offers
    windows: dict[str, list[dict]] = field(default_factory=dict)
    claims: list[ClaimDef] = field(default_factory=list)  # rules.yaml 'as-soon-as'
    # payment sources of rules.yaml: {currency, counter | query, rate, target, spend, text}
    payments: list[dict] = field(default_factory=list)
    # effects that may be done in part: {effect, whose?, names?}
    may_fall_short: list[dict] = field(default_factory=list)
    format: int = BYTECODE_VERSION

    def card(self, card_id: str) -> CardDef | None:
        return next((c for c in self.cards if c.id == card_id), None)

    def codes(self):
        """Every Code in the pack with a label, for the disassembler and the validator."""
        for label, code in (("setup", self.setup), ("game", self.game)):
            if code:
                yield label, code
        for z, code in self.zone_on_empty.items():
            yield f"zone {z} on-empty", code
        for p, code in self.piece_when_full.items():
            yield f"piece {p} when-full", code
        for step in self.scoring:
            yield f"scoring {step['id']}", step["code"]
        for i, code in enumerate(self.tiebreakers):
            yield f"tiebreaker {i + 1}", code
        for i, code in enumerate(self.ranking):
            yield f"ranking {i + 1}", code
        for w, opts in self.windows.items():
            for i, o in enumerate(opts):
                yield f"window {w} {i + 1}", o["code"]
                if o["guard"] is not None:
                    yield f"window {w} {i + 1} guard", o["guard"]
        for i, c in enumerate(self.claims):
            yield f"as soon as {i + 1}", c.cond
            yield f"as soon as {i + 1} body", c.code
        for c in self.cards:
            yield from self.card_codes(c)

    def card_codes(self, c: CardDef):
        for t, code in c.abilities.items():
            yield f"{c.id} {t}", code
        for t, code in c.conditions.items():
            yield f"{c.id} {t}", code
        for i, trig in enumerate(c.triggers):
            yield f"{c.id} trigger {i + 1} (when {trig.subject} {trig.verb})", trig.code
        for i, claim in enumerate(c.claims):
            yield f"{c.id} as soon as {i + 1}", claim.cond
            yield f"{c.id} as soon as {i + 1} body", claim.code

    def span(self, index: int) -> Span:
        return self.spans[index] if 0 <= index < len(self.spans) else Span("<unknown>", 0, 0)

    def to_json(self) -> dict:
        return {
            "format": self.format, "id": self.id, "name": self.name, "version": self.version,
            "chain": self.chain, "players": list(self.players), "resources": self.resources,
            "counters": self.counters, "params": self.params, "zones": self.zones,
            "card_types": self.card_types, "traits": self.traits, "stats": self.stats,
            "pieces": self.pieces, "flags": self.flags, "timings": self.timings, "activation": self.activation,
            "cards": [c.to_json() for c in self.cards],
            "setup": self.setup.to_json() if self.setup else None,
            "game": self.game.to_json() if self.game else None,
            "scoring": [{"id": s["id"], "name": s["name"], "names": s.get("names", {}),
                         "code": s["code"].to_json()} for s in self.scoring],
            "tiebreakers": [c.to_json() for c in self.tiebreakers],
            "zone_on_empty": {k: v.to_json() for k, v in self.zone_on_empty.items()},
            "piece_when_full": {k: v.to_json() for k, v in self.piece_when_full.items()},
            "spans": [[s.file, s.line, s.col] for s in self.spans],
            "names": self.names, "statistics": self.statistics,
            "ranking": [c.to_json() for c in self.ranking], "automa": self.automa,
            "windows": {w: [{"label": o["label"], "guard": o["guard"].to_json() if o["guard"] else None,
                             "code": o["code"].to_json()} for o in opts] for w, opts in self.windows.items()},
            "claims": [c.to_json() for c in self.claims],
            # only when declared: a pack without them reads as it always did
            **({"payments": self.payments} if self.payments else {}),
            **({"may_fall_short": self.may_fall_short} if self.may_fall_short else {}),
        }

    @staticmethod
    def from_json(d: dict) -> CompiledPack:
        if d.get("format") != BYTECODE_VERSION:
            raise ValueError(f"bytecode format {d.get('format')!r}; this cardsmith reads format {BYTECODE_VERSION}")
        return CompiledPack(
            id=d["id"], name=d["name"], version=d["version"], chain=d["chain"], players=tuple(d["players"]),
            resources=d["resources"], counters=d["counters"], params=d["params"], zones=d["zones"],
            card_types=d["card_types"], traits=d["traits"], stats=d["stats"], pieces=d["pieces"],
            flags=d["flags"], timings=d["timings"], activation=d["activation"],
            cards=[CardDef.from_json(c) for c in d["cards"]],
            setup=Code.from_json(d["setup"]), game=Code.from_json(d["game"]),
            scoring=[{"id": s["id"], "name": s["name"], "names": s.get("names", {}),
                      "code": Code.from_json(s["code"])} for s in d["scoring"]],
            tiebreakers=[Code.from_json(c) for c in d["tiebreakers"]],
            zone_on_empty={k: Code.from_json(v) for k, v in d["zone_on_empty"].items()},
            piece_when_full={k: Code.from_json(v) for k, v in d["piece_when_full"].items()},
            spans=[Span(f, ln, c) for f, ln, c in d["spans"]], names=d.get("names", {}),
            statistics=d.get("statistics", {}),
            ranking=[Code.from_json(c) for c in d.get("ranking", [])], automa=d.get("automa", []),
            windows={w: [{"label": o["label"], "guard": Code.from_json(o["guard"]), "code": Code.from_json(o["code"])}
                         for o in opts] for w, opts in d.get("windows", {}).items()},
            claims=[ClaimDef.from_json(c) for c in d.get("claims", [])],
            payments=d.get("payments", []), may_fall_short=d.get("may_fall_short", []),
        )


def validate_code(code: Code) -> list[str]:
    """Structural problems of a Code: unknown opcodes, wrong operand counts, jumps out of range."""
    problems = []
    n = len(code.ops)
    for i, ins in enumerate(code.ops):
        op = BY_NAME.get(ins[0])
        if op is None:
            problems.append(f"{code.name}[{i}]: unknown opcode {ins[0]!r}")
            continue
        if len(ins) - 1 != len(op.operands):
            problems.append(f"{code.name}[{i}]: {op.name} takes {len(op.operands)} operands, got {len(ins) - 1}")
            continue
        if op.name in ("JUMP", "JUMP_IF", "JUMP_IF_NOT", "COUNTDOWN", "NEXT_CARD", "NEXT_PLAYER", "NEXT_PART") \
                and not 0 <= ins[1] <= n:
            problems.append(f"{code.name}[{i}]: jump target {ins[1]} out of range")
        if op.name == "SWITCH" and not all(0 <= t <= n for t in ins[1]):
            problems.append(f"{code.name}[{i}]: switch target out of range")
    if len(code.spans) != n:
        problems.append(f"{code.name}: {len(code.spans)} spans for {n} instructions")
    return problems
