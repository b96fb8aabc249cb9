"""AST back to effect-language text: labels for choices, disassembly and round-trip tests."""

from __future__ import annotations

from . import ast as A


def text(node) -> str:
    f = _T.get(type(node))
    if f is None:
        if isinstance(node, tuple):
            return ", ".join(text(n) for n in node)
        return str(node)
    return f(node)


def _amount(a: A.Amount) -> str:
    if a.kind == "all":
        return "all"
    v = text(a.value)
    return f"up to {v}" if a.kind == "up_to" else v


def _per(p: A.Per | None) -> str:
    if p is None:
        return ""
    return f" per {p.divisor} {text(p.of)}" if p.divisor != 1 else f" per {text(p.of)}"


def _query(q: A.Query) -> str:
    s = "card"
    if q.zones:
        s += " in " + " or ".join(text(z) for z in q.zones)
    if q.filters:
        s += " with " + " and ".join(text(f) for f in q.filters)
    if q.where is not None:
        s += f" where {text(q.where)}"
    return s


def _zone(z: A.ZoneRef) -> str:
    return z.name + (f" of {text(z.player)}" if z.player else "")


_PREF = {"you": "you", "active": "active player", "left": "left neighbour", "right": "right neighbour",
         "first": "first player", "others": "each opponent", "all": "all players"}


def _players(p: A.Players) -> str:
    start = f" from {text(p.start)}" if p.start else ""
    return {"each": f"each player{start}", "each_other": f"each other player{start}",
            "opponents": f"each opponent{start}",
            "turns": f"each player in turn order{start}", "chosen": "a player"}.get(p.kind, text(p.ref))


def _player_filter(f) -> str:
    if isinstance(f, A.PlayerNot):
        return "not " + _player_filter(f.inner)
    if isinstance(f, A.PlayerNoFlag):
        return "no " + f.name
    if isinstance(f, A.PlayerCmp):
        return f"{f.name} {f.op} {text(f.value)}"
    return f.name


def _body(b) -> str:
    return ", ".join(text(s) for s in b)


# How tightly each operator binds, as the grammar parses them: a weaker operand is bracketed, so that the text
# parses back to the same tree ('(difficulty - 1) / 2' is not 'difficulty - 1 / 2').
_BINDS = {"or": 1, "and": 2, "=": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3, "+": 4, "-": 4, "*": 5, "/": 5,
          "%": 5}


def _bin(e: A.BinOp) -> str:
    mine = _BINDS.get(e.op, 0)

    def side(x, right: bool) -> str:
        if isinstance(x, A.BinOp):
            theirs = _BINDS.get(x.op, 0)
            if theirs < mine or (right and theirs == mine and e.op not in ("and", "or")):
                return f"({text(x)})"
        return _paren(x)

    return f"{side(e.left, False)} {e.op} {side(e.right, True)}"


def _paren(e) -> str:
    return f"({text(e)})" if isinstance(e, A.BinOp) and e.op in ("and", "or") else text(e)


def _source(s: A.Source) -> str:
    end = f"{s.end} of " if s.end else ""
    filt = (" with " + " and ".join(text(f) for f in s.filters)) if s.filters else ""
    return f"{end}{text(s.zone)}{filt}"


def _dest(d: A.Dest) -> str:
    cell = f" at row {text(d.cell.row)} column {text(d.cell.column)}" if d.cell else ""
    return (f"{d.end} of " if d.end else "") + text(d.zone) + cell


def _target(t) -> str:
    if isinstance(t, A.EachOf):
        return "each " + _query(t.query)
    if isinstance(t, A.AnyOf):
        return _query(t.query)
    return text(t)


def _as(name: str | None) -> str:
    return f" as {name}" if name else ""


def _call_arg(a: A.CallArg) -> str:
    if a.kind == "expr":
        return f"({text(a.value)})"
    if a.kind == "upto":
        inner = a.value
        shown = text(inner) if isinstance(inner, A.Num | A.Name) else f"({text(inner)})"
        return f"up to {shown}"
    return {"it": "it", "this": "this"}.get(a.kind, str(a.value))


def _pay_source(n: A.PaySource) -> str:
    s = f"pay {n.currency} with {n.counter or _query(n.query)}"
    if n.rate is not None:
        s += f" at {text(n.rate)}"
    if n.target is not None:
        s += " for a card with " + " and ".join(text(f) for f in n.target)
    return s + (f": {_body(n.spend)}" if n.spend else "")


_T = {
    A.Program: lambda n: _body(n.body),
    A.PlayerRef: lambda n: f"automa {n.name}" if n.kind == "automa" else _PREF[n.kind],
    A.It: lambda n: "it",
    A.This: lambda n: "this",
    A.Param: lambda n: f"${n.name}",
    A.LocalCard: lambda n: f"the {n.name}",
    A.ZoneRef: _zone,
    A.ZoneOf: lambda n: f"the zone of {text(n.card)}",
    A.Query: _query,
    A.TraitIs: lambda n: f"{n.trait} {' or '.join(n.values)}",
    A.Has: lambda n: n.name,
    A.HasNo: lambda n: f"no {n.name}",
    A.HasAbility: lambda n: f"{n.timing} ability",
    A.StatCmp: lambda n: f"{n.stat} {n.op} {text(n.value)}",
    A.FilterNot: lambda n: f"not {text(n.inner)}",
    A.MacroFilter: lambda n: n.name,  # a filter or value macro reads back as its name, as written
    A.MacroValue: lambda n: n.name,
    A.NotThis: lambda n: "other than this",
    A.NotCard: lambda n: f"other than {text(n.card)}",
    A.Num: lambda n: str(n.value),
    A.Bool: lambda n: "true" if n.value else "false",
    A.VarX: lambda n: "X",
    A.Name: lambda n: n.name,
    A.Attr: lambda n: f"{n.name} of {text(n.ref)}",
    A.Pieces: lambda n: f"{n.piece}{' of yours' if n.owned else ''} on {text(n.ref)}",
    A.Count: lambda n: f"count({_query(n.query)})",
    A.CountPlayers: lambda n: "count(players" + (" other than you" if n.other else "")
    + (" with " + " and ".join(_player_filter(f) for f in n.filters) if n.filters else "") + ")",
    A.SumOf: lambda n: f"sum({n.name} of {_query(n.query)})",
    A.Func: lambda n: f"{n.name}({', '.join(text(a) for a in n.args)})",
    A.CardIs: lambda n: f"{text(n.ref)} is {text(n.filter)}",
    A.BinOp: _bin,
    A.Not: lambda n: f"not {_paren(n.operand)}",
    A.Neg: lambda n: f"-{text(n.operand)}",
    A.Cond: lambda n: f"(if {text(n.cond)} then {text(n.then)} else {text(n.otherwise)})",
    A.Amount: _amount,
    A.Gain: lambda n: f"gain {_amount(n.amount)} {n.resource}{_per(n.per)}",
    A.Lose: lambda n: f"lose {_amount(n.amount)} {n.resource}{_per(n.per)}",
    A.Pay: lambda n: "pay " + " and ".join(f"{_amount(a)} {r}" for a, r in n.items)
    + (f" for {text(n.for_card)}" if n.for_card is not None else ""),
    A.PaySource: _pay_source,
    A.InAnyOrder: lambda n: f"in any order: {_body(n.parts)}",
    A.Can: lambda n: f"can {text(n.stmt)}",
    A.SetCounter: lambda n: f"set {n.name} to {text(n.value)}",
    A.Score: lambda n: f"score {_amount(n.amount)}{_per(n.per)}",
    A.May: lambda n: f"may {text(n.body)}",
    A.Group: lambda n: n.call if n.call else f"({_body(n.body)})",
    A.Nothing: lambda n: "nothing",
    A.Call: lambda n: " ".join([n.name, *(_call_arg(a) for a in n.args)]),
    A.Emit: lambda n: f"emit {n.event}" + (f" {n.object}" if n.object else ""),
    A.PassFirst: lambda n: f"pass first player to {text(n.to)}",
    A.EndGame: lambda n: "end game",
    A.Shuffle: lambda n: f"shuffle {text(n.zone)}",
    A.Modify: lambda n: f"modify {n.stat} of {_query(n.query)} by {text(n.by)}",
    A.Prevent: lambda n: f"prevent {'opponents ' if n.opponents else ''}remove {' or '.join(n.names)} from {n.scope}",
    A.ActivateTiming: lambda n: f"activate {n.timing} abilities",
    A.ActivateCopy: lambda n: f"activate {n.timing} ability of {_target(n.target)}",
    A.Mark: lambda n: f"{'mark' if n.on else 'unmark'} {_target(n.target)} {n.flag}",
    A.Flip: lambda n: f"flip {_target(n.target)}",
    A.Reveal: lambda n: f"reveal {_amount(n.amount)} from {_source(n.source)}",
    A.ChooseX: lambda n: f"choose X from {text(n.low)} to {text(n.high)}",
    A.Let: lambda n: f"let {n.name} = {text(n.value)}",
    A.OpenWindow: lambda n: f"open window {n.name}",
    A.AsSoonAs: lambda n: f"as soon as {text(n.cond)}" + (f" for each {_query(n.query)}" if n.query else "")
    + f": {_body(n.body)}",
    A.Activation: lambda n: f"activate {n.timing} abilities",
    A.Move: lambda n: f"move {_amount(n.amount)} card from {_source(n.source)} to {_dest(n.dest)}"
    + (f" face {n.face}" if n.face else ""),
    A.MoveCard: lambda n: f"move {text(n.card)} to {_dest(n.dest)}" + (f" face {n.face}" if n.face else ""),
    A.Place: lambda n: f"place {_amount(n.amount)} {n.piece}{' of yours' if n.owned else ''} on {_target(n.target)}",
    A.Remove: lambda n: f"remove {_amount(n.amount)} {n.piece} from {_target(n.target)}",
    A.Costed: lambda n: f"{text(n.cost)}: {_body(n.body)}",
    A.If: lambda n: f"if {text(n.cond)}: {_body(n.then)}" + (f" else: {_body(n.otherwise)}" if n.otherwise else ""),
    A.Scoped: lambda n: f"{_players(n.players)}: {_body(n.body)}",
    A.ForEach: lambda n: f"for each {_query(n.query)}{' from right to left' if n.reverse else ''}"
    f"{_as(n.name)}: {_body(n.body)}",
    A.Repeat: lambda n: {"times": f"repeat {text(n.value)} times", "until": f"repeat until {text(n.value)}",
                         "while": f"repeat while {text(n.value)}", "up_to": f"up to {text(n.value)} times"}[n.kind]
    + f": {_body(n.body)}",
    A.ChooseOne: lambda n: "choose one: " + " | ".join(_body(o) for o in n.options),
    A.ChooseCard: lambda n: f"choose a {_query(n.query)}{_as(n.name)}: {_body(n.body)}",
    A.Trigger: lambda n: f"when {n.subject} {n.verb} "
    + (_query(n.object) if isinstance(n.object, A.Query) else (n.object or "")) + f": {_body(n.body)}",
    A.Players: _players,
}
