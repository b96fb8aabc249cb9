"""Run a card query against a pack's search index.

`plan` parses the query and resolves every term against the pack's fields (`fields.py`): an unknown
field or value, an operator a field does not take, a number that is not one, a `sort:` or `limit:`
inside parentheses: every such mistake is a QueryError with its column, all of them reported at once.
`run` then filters the documents, sorts (pack order unless `sort:` says otherwise; cards without the
sort key go last) and cuts at `limit:`. static/query.js does the same in the browser.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardsmith.compiler.diagnostics import did_you_mean

from .fields import SearchIndex, norm
from .query_parse import And, Bare, Not, Or, QueryError, Term, parse_query

MODIFIERS = ("sort", "limit")
_NUMERIC_OPS = {":": "=", "=": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


class QueryErrors(ValueError):
    """Every mistake of a query, in column order."""

    def __init__(self, errors: list[QueryError]) -> None:
        self.errors = sorted(errors, key=lambda e: e.col)
        super().__init__("; ".join(e.message for e in self.errors))

    def render(self, query: str, origin: str = "query") -> str:
        return "\n".join(e.render(query, origin) for e in self.errors)


@dataclass(frozen=True)
class Check:
    """A resolved term: `field` is "*" for a bare word (names and generated text)."""

    field: str
    kind: str
    op: str
    value: str | int


@dataclass
class Plan:
    root: object | None  # Check | Not | And | Or over Checks
    sort: list[tuple[str, str, bool]]  # (field, kind, descending)
    limit: int | None


def plan(text: str, index: SearchIndex) -> Plan:
    try:
        tree = parse_query(text)
    except QueryError as e:
        raise QueryErrors([e]) from None
    errors: list[QueryError] = []
    top = list(tree.items) if isinstance(tree, And) else [tree] if tree is not None else []
    sort: list[tuple[str, str, bool]] = []
    limit = None
    rest = []
    for node in top:
        if isinstance(node, Term) and node.field in MODIFIERS:
            if node.field == "limit":
                limit = _limit(node, errors)
            else:
                key = _sort_key(node, index, errors)
                if key:
                    sort.append(key)
        else:
            rest.append(node)
    root = None
    if rest:
        root = _resolve(rest[0] if len(rest) == 1 else And(tuple(rest), rest[0].col), index, errors)
    if errors:
        raise QueryErrors(errors)
    return Plan(root, sort, limit)


def _limit(t: Term, errors: list[QueryError]) -> int | None:
    if t.op not in (":", "=") or not t.value.isdigit():
        errors.append(QueryError("limit takes a whole number: limit:20", t.value_col, length=len(t.value) or 1))
        return None
    return int(t.value)


def _sort_key(t: Term, index: SearchIndex, errors: list[QueryError]):
    name, desc = (t.value[1:], True) if t.value.startswith("-") else (t.value, False)
    f = index.resolve(name)
    sortable = sorted(n for n, x in index.fields.items() if x.sortable)
    if t.op not in (":", "=") or f is None or not f.sortable:
        hint = did_you_mean(name, sortable) or "sort keys: " + ", ".join(sortable)
        errors.append(QueryError(f"cannot sort by '{name}'", t.value_col, hint + "; sort:-KEY sorts descending",
                                 len(t.value) or 1))
        return None
    return f.name, f.kind, desc


def _resolve(node, index: SearchIndex, errors: list[QueryError]):
    if isinstance(node, And):
        return And(tuple(_resolve(n, index, errors) for n in node.items), node.col)
    if isinstance(node, Or):
        return Or(tuple(_resolve(n, index, errors) for n in node.items), node.col)
    if isinstance(node, Not):
        return Not(_resolve(node.inner, index, errors), node.col)
    if isinstance(node, Bare):
        return Check("*", "text", ":", norm(node.text))
    assert isinstance(node, Term)
    return _term(node, index, errors)


def _term(t: Term, index: SearchIndex, errors: list[QueryError]) -> Check | None:
    if t.field in MODIFIERS:
        errors.append(QueryError(f"{t.field}: applies to the whole query; put it outside parentheses and "
                                 "negations", t.col, length=len(t.field)))
        return None
    f = index.resolve(t.field)
    if f is None:
        known = sorted(set(index.fields) | set(index.aliases))
        errors.append(QueryError(f"unknown field '{t.field}'", t.col,
                                 did_you_mean(t.field, known) or "fields: " + ", ".join(sorted(index.fields)),
                                 len(t.field)))
        return None
    value = norm(t.value)
    if f.kind == "number":
        try:
            return Check(f.name, f.kind, _NUMERIC_OPS[t.op], int(value))
        except ValueError:
            errors.append(QueryError(f"'{f.name}' is a number, not '{t.value}'", t.value_col,
                                     f"e.g. {f.name}>=2", len(t.value) or 1))
            return None
    if t.op not in (":", "=", "!="):
        errors.append(QueryError(f"'{t.op}' compares numbers; '{f.name}' is a {_kind_word(f.kind)}",
                                 t.col + len(t.field), f"use {f.name}:VALUE, or -{f.name}:VALUE for cards without it",
                                 len(t.op)))
        return None
    if f.kind == "text":
        return Check(f.name, f.kind, t.op, value)
    canonical = f.values.get(value)
    if canonical is None:
        shown = sorted(set(f.values.values()))
        hint = did_you_mean(value, list(f.values)) or (
            f"values: {', '.join(shown[:15])}" + (f" (and {len(shown) - 15} more)" if len(shown) > 15 else ""))
        errors.append(QueryError(f"'{t.value}' is not a value of '{f.name}' in this pack", t.value_col, hint,
                                 len(t.value) or 1))
        return None
    return Check(f.name, f.kind, t.op, canonical)


def _kind_word(kind: str) -> str:
    return {"text": "text field", "facet": "list of values", "bool": "true/false field"}.get(kind, kind)


# ------------------------------------------------------------------------------ running


def matches(node, doc: dict) -> bool:
    if isinstance(node, And):
        return all(matches(n, doc) for n in node.items)
    if isinstance(node, Or):
        return any(matches(n, doc) for n in node.items)
    if isinstance(node, Not):
        return not matches(node.inner, doc)
    c: Check = node
    if c.field == "*":
        return any(c.value in s for k in ("name", "text") for s in doc["t"].get(k, ()))
    if c.kind == "number":
        n = doc["n"].get(c.field)
        if n is None:
            return False
        v = c.value
        return {"=": n == v, "!=": n != v, "<": n < v, "<=": n <= v, ">": n > v, ">=": n >= v}[c.op]
    if c.kind == "text":
        strings = doc["t"].get(c.field, ())
        if c.op == "=":
            return c.value in strings
        found = any(c.value in s for s in strings)
        return not found if c.op == "!=" else found
    has = c.value in doc["f"].get(c.field, ())
    return not has if c.op == "!=" else has


def run(index: SearchIndex, text: str) -> list[int]:
    """The positions (in pack order) of the documents the query finds, in result order."""
    p = plan(text, index)
    found = [i for i, d in enumerate(index.docs) if p.root is None or matches(p.root, d)]
    for name, kind, desc in reversed(p.sort):  # stable sorts, last key first
        present = [i for i in found if _key(index.docs[i], name, kind) is not None]
        absent = [i for i in found if _key(index.docs[i], name, kind) is None]
        present.sort(key=lambda i: _key(index.docs[i], name, kind), reverse=desc)
        found = present + absent
    return found[: p.limit] if p.limit is not None else found


def _key(doc: dict, name: str, kind: str):
    if kind == "number":
        return doc["n"].get(name)
    values = doc["t" if kind == "text" else "f"].get(name)
    return values[0] if values else None
