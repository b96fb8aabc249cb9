"""Code generation for players as values, rankings and whole zones (Language 2, part 2): a mixin of the emitter
(emit.py), which gives it `op`, `stmts`, `expr`, `expression`, `patch`, `here` and the operand helpers.
The opcodes are declared in bytecode/opcodes.py (CHOOSE_PLAYER, MARK_PLAYER, PLACED, BEST, PASS_ZONES, SWAP,
and the kinds chosen, named and ranked of FOR_PLAYERS)."""

from __future__ import annotations

from . import ast as A


def _who(ref: A.PlayerRef) -> str:
    """A player word as the VM reads it: you, active, left, right, first, others, all, automa:NAME, or local:NAME
    (a player bound to a name)."""
    return f"{ref.kind}:{ref.name}" if ref.kind in ("automa", "local") else ref.kind



class PlayerEmits:
    """Emitter methods for the part-2 constructs (see the module)."""

    def s_PassZones(self, s: A.PassZones) -> None:
        self.op("PASS_ZONES", s.zone, s.to)

    def s_Swap(self, s: A.Swap) -> None:
        self.op("SWAP", self.zone(s.first), self.zone(s.second))

    def s_ChoosePlayer(self, s: A.ChoosePlayer) -> None:
        """The player chosen is bound to the name; what follows runs for the chooser. CHOOSE_PLAYER's second
        operand is the end of what the choice governs (its legal targets are those for whom it can be done)."""
        at = self.op("CHOOSE_PLAYER", self.pick(s.other, s.filters, s.name), None)
        j = self.op("JUMP_IF_NOT", None)
        self.players.append(s.name)
        self.stmts(s.body)
        self.players.pop()
        self.patch(j)
        self.code.ops[at][2] = self.here()

    def pick(self, other: bool, filters: tuple, name: str | None = None) -> dict:
        out: dict = {"other": other, "filters": [self.player_filter(f) for f in filters]}
        if name is not None:
            out["name"] = name
        return out

    def player_filter(self, f) -> list:
        if isinstance(f, A.PlayerNot):
            return ["not", self.player_filter(f.inner)]
        if isinstance(f, A.PlayerNoFlag):
            return ["not", ["has", f.name]]
        if isinstance(f, A.PlayerFlag):
            return ["has", f.name]
        from .emit import const_value, is_const

        value = const_value(f.value, self.voc) if is_const(f.value, self.voc) and not isinstance(f.value, A.Name) else \
            self.sub_expression(f"player filter {f.name} {f.op}", f.value)
        return ["cmp", f.name, f.op, value]

    def sub_expression(self, name: str, e) -> dict:
        saved = (self.code, self.span)
        out = self.expression(name, e).to_json()
        self.code, self.span = saved
        return out

    def rank(self, r: A.Rank, measure) -> dict:
        return {"by": self.sub_expression("ranked by", measure), "place": r.place, "fewest": r.fewest,
                "ties": r.ties or "share"}

    def s_ForRanked(self, s: A.ForRanked) -> None:
        spec = self.rank(s.rank, s.measure)
        split = s.rank.ties == "split"
        if split:
            spec["count"] = f"#tied{len(self.splits) + 1}"  # not a name a program can write
        self.op("FOR_PLAYERS", "ranked", spec)
        loop = self.op("NEXT_PLAYER", None)
        if split:
            self.splits.append(spec["count"])
        self.stmts(s.body)
        if split:
            self.splits.pop()
        self.op("JUMP", loop)
        self.patch(loop)

    def player_value(self, ref) -> None:
        """Push a player: a player word, or one bound to a name ('the rival')."""
        if isinstance(ref, A.LocalCard) or (isinstance(ref, A.PlayerRef) and ref.kind == "local"):
            self.op("LOCAL", ref.name)
        else:
            self.op("PLAYER", _who(ref))

    def e_MacroValue(self, e: A.MacroValue) -> None:
        self.expr(e.value)

    def e_HasRank(self, e: A.HasRank) -> None:
        self.op("PLACED", self.rank(e.rank, e.measure))
    def s_Scoped(self, s: A.Scoped) -> None:
        p = s.players
        start = _who(p.start) if p.start else None
        ref = _who(p.ref) if p.ref else None
        if p.kind == "at_once":
            # every player's part is first run unseen by the others (their choices noted), then all are run
            self.op("AT_ONCE", start)
            loop = self.op("NEXT_AT_ONCE", None)
            self.stmts(s.body)
            self.op("JUMP", loop)
            self.patch(loop)
            return
        if p.kind == "chosen":
            self.op("FOR_PLAYERS", "chosen", self.pick(p.other, p.filters))
        elif p.kind == "named":
            self.op("FOR_PLAYERS", "named", {"name": p.name, "chooses": p.chooses})
        else:
            self.op("FOR_PLAYERS", p.kind, start or ref)
        loop = self.op("NEXT_PLAYER", None)
        self.stmts(s.body)
        self.op("JUMP", loop)
        self.patch(loop)

    def s_Mark(self, s: A.Mark) -> None:
        if isinstance(s.target, A.PlayerRef) or (isinstance(s.target, A.LocalCard) and s.target.name in self.players):
            self.player_value(s.target)
            self.op("MARK_PLAYER", s.flag, s.on)
            return
        self.for_target(s.target, lambda: (self.op("IT"), self.op("MARK", s.flag, s.on)))

    def s_Let(self, s: A.Let) -> None:
        if isinstance(s.value, A.PlayerRef) or (isinstance(s.value, A.LocalCard) and s.value.name in self.players):
            self.player_value(s.value)
            self.players.append(s.name)
        else:
            self.expr(s.value)
        self.op("SET_LOCAL", s.name)

    def e_Attr(self, e: A.Attr) -> None:
        voc = self.voc
        if isinstance(e.ref, A.PlayerRef) or (isinstance(e.ref, A.LocalCard) and e.ref.name in self.players):
            self.player_value(e.ref)
            self.op("PLAYER_COUNTER", e.name)
            if e.name in voc.player_flags:
                self.op("BOOL")
            return
        self.expr(e.ref)
        if e.name in ("row", "column", "position"):
            self.op("PLACE_OF", e.name)
        elif e.name in voc.stats:
            self.op("STAT", e.name)
        elif e.name in voc.pieces:
            self.op("PIECES", e.name)
        else:
            self.op("CONDITION", e.name)
