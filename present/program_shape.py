"""The shape of a program's statements, as the rule reference reads it (reference.py): walking the AST, the
macro calls a statement makes, whether a statement does nothing, and whether a macro is a conversion (a cost
followed by a reward) — questions about form only, never about what the game does."""

from __future__ import annotations

from cardsmith.compiler import ast as A


def _walk(node, into_macros: bool = True):
    """Every AST node under `node` (tuples included), depth first; with into_macros=False a macro
    call's group is yielded but not entered."""
    if isinstance(node, tuple):
        for n in node:
            yield from _walk(n, into_macros)
        return
    if not isinstance(node, A.Node):
        return
    yield node
    if not into_macros and isinstance(node, A.Group) and node.macro is not None:
        return
    for f in getattr(node, "__dataclass_fields__", {}):
        if f == "span":
            continue
        v = getattr(node, f)
        if isinstance(v, tuple | A.Node):
            if isinstance(v, tuple) and v and isinstance(v[0], tuple):
                for o in v:
                    yield from _walk(o, into_macros)
            else:
                yield from _walk(v, into_macros)


# statements with a header and a body of steps: each player, for each card, repeat, a cost and what it buys, if,
# a card chosen and what is done with it
_HEADED = (A.Scoped, A.ForEach, A.Repeat, A.Costed, A.If, A.ChooseCard)


def _does_nothing(stmt) -> bool:
    return isinstance(stmt, A.Nothing) or (isinstance(stmt, A.Group) and all(_does_nothing(x) for x in stmt.body))


def _body(stmt) -> tuple:
    return stmt.then if isinstance(stmt, A.If) else stmt.body


def _flatten(body) -> list:
    out = []
    for s in body:
        if isinstance(s, A.Group) and s.macro is None:
            out.extend(_flatten(s.body))
        else:
            out.append(s)
    return out


def _macro_groups(stmt) -> list[A.Group]:
    """The macro calls directly inside a statement (not inside other macro calls), in order."""
    out = []

    def visit(n):
        if isinstance(n, A.Group) and n.macro is not None:
            out.append(n)
            return
        if isinstance(n, tuple):
            for x in n:
                visit(x)
            return
        if isinstance(n, A.Node):
            for f in getattr(n, "__dataclass_fields__", {}):
                if f != "span":
                    v = getattr(n, f)
                    if isinstance(v, tuple | A.Node):
                        visit(v)

    visit(stmt)
    return out


def _single_macro(option) -> A.Group | None:
    flat = _flatten(option)
    if len(flat) == 1 and isinstance(flat[0], A.Group) and flat[0].macro is not None:
        return flat[0]
    return None


def _is_conversion(body) -> bool:
    flat = _flatten(body)
    if len(flat) != 1:
        return False
    s = flat[0]
    while isinstance(s, A.Repeat | A.Scoped | A.May) or (isinstance(s, A.Group) and s.macro is None):
        inner = _flatten(s.body) if not isinstance(s, A.May) else [s.body]
        if len(inner) != 1:
            return False
        s = inner[0]
    if isinstance(s, A.ChooseOne):
        return all(len(_flatten(o)) == 1 and _is_costed_trade(_flatten(o)[0]) for o in s.options)
    return _is_costed_trade(s)


def _is_costed_trade(s) -> bool:
    if not isinstance(s, A.Costed):
        return False
    rewards = _flatten(s.body)
    return isinstance(s.cost, A.Pay | A.Remove | A.Lose) and all(isinstance(b, A.Gain | A.Place) for b in rewards)
