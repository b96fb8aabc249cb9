"""Parse a card query (grammar/query.lark) into a small tree of our own, every node with its column.

Lark trees stay inside this module. A query that does not parse is a QueryError with the 1-based
column of the offending character in the query text and a hint for the common slips (a space
after the operator, an unclosed parenthesis or quote).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

GRAMMAR_PATH = Path(__file__).resolve().parent.parent / "grammar" / "query.lark"
OPERATORS = (":", "=", "!=", "<", "<=", ">", ">=")


class QueryError(ValueError):
    """A query the user wrote that cannot run: `col` is the 1-based column in the query text."""

    def __init__(self, message: str, col: int, hint: str | None = None, length: int = 1) -> None:
        super().__init__(message)
        self.message, self.col, self.hint, self.length = message, col, hint, max(1, length)

    def render(self, query: str, origin: str = "query") -> str:
        """gcc-style: `query:1:COL: error: message`, the query, a caret under the place."""
        lines = [f"{origin}:1:{self.col}: error: {self.message}", f"    {query}",
                 "    " + " " * (self.col - 1) + "^" * min(self.length, max(1, len(query) - self.col + 1))]
        if self.hint:
            lines.append(f"    = help: {self.hint}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"message": self.message, "col": self.col, "hint": self.hint}


# ------------------------------------------------------------------------------ the tree


@dataclass(frozen=True)
class Term:
    """FIELD OP VALUE, as written (the field and value are resolved against a pack later)."""

    field: str
    op: str
    value: str
    quoted: bool
    col: int  # of the field
    value_col: int


@dataclass(frozen=True)
class Bare:
    """A word or a quoted phrase on its own: matched against names and generated text."""

    text: str
    col: int


@dataclass(frozen=True)
class Not:
    inner: Node
    col: int


@dataclass(frozen=True)
class And:
    items: tuple[Node, ...]
    col: int


@dataclass(frozen=True)
class Or:
    items: tuple[Node, ...]
    col: int


Node = Term | Bare | Not | And | Or


def unquote(text: str) -> str:
    """A STRING token's content: the quotes removed, \\" and \\\\ unescaped."""
    out, i, body = [], 0, text[1:-1]
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            i += 1
        out.append(body[i])
        i += 1
    return "".join(out)


@v_args(inline=True)
class _ToTree(Transformer):
    def start(self, node=None):
        return node

    def term(self, field_op: Token, value: tuple[str, bool, int]):
        raw = str(field_op)
        op = next(o for o in ("!=", "<=", ">=", ":", "=", "<", ">") if raw.endswith(o))
        text, quoted, vcol = value
        return Term(raw[: -len(op)].lower(), op, text, quoted, field_op.column, vcol)

    def value(self, tok: Token):
        if tok.type == "STRING":
            return unquote(str(tok)), True, tok.column
        return str(tok), False, tok.column

    def bare(self, tok: Token):
        return Bare(str(tok), tok.column)

    def phrase(self, tok: Token):
        return Bare(unquote(str(tok)), tok.column)

    def negate(self, neg: Token, inner):
        return Not(inner, neg.column)

    def both(self, left, *rest):
        right = rest[-1]  # an explicit AND token sits between them
        items = (left.items if isinstance(left, And) else (left,)) + (right,)
        return And(items, _col(items[0]))

    def either(self, left, _or, right):
        items = (left.items if isinstance(left, Or) else (left,)) + (right,)
        return Or(items, _col(items[0]))


def _col(node: Node) -> int:
    return node.col


@functools.cache
def _parser() -> Lark:
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", lexer="contextual",
                propagate_positions=False, maybe_placeholders=False)


def grammar_text() -> str:
    return GRAMMAR_PATH.read_text(encoding="utf-8")


def parse_query(text: str) -> Node | None:
    """The query's tree (None for an empty query), or QueryError."""
    if "\n" in text or "\r" in text:
        col = min(i for i in (text.find("\n"), text.find("\r")) if i >= 0) + 1
        raise QueryError("a query is one line", col)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as e:
        raise _friendly(e, text) from None
    return _ToTree().transform(tree)


# ------------------------------------------------------------------------------ errors


def _friendly(e: UnexpectedInput, text: str) -> QueryError:
    if isinstance(e, UnexpectedCharacters):
        col = e.column
        ch = text[col - 1] if 0 < col <= len(text) else ""
        before = text[: col - 1].rstrip()
        if ch == '"':
            return QueryError("this quote is never closed", col, 'end the phrase with another "')
        if ch in ":<>=!" and before and before[-1:].isalnum() and text[col - 2:col - 1] == " ":
            return QueryError(f"a space before '{ch}'", col - 1, "write a term without spaces: cost<=3, type:event")
        if ch in ":<>=!":
            return QueryError(f"'{ch}' needs a field name before it", col, "a term reads FIELD:VALUE, e.g. type:event")
        if ch == ")":
            return QueryError("')' closes no parenthesis", col)
        return QueryError(f"unexpected '{ch}'", col)
    if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        return _at_end(text)
    assert isinstance(e, UnexpectedToken)
    tok = e.token
    col = tok.column if isinstance(tok.column, int) else len(text) + 1
    if tok.type == "RPAR":
        return QueryError("')' closes no parenthesis, or a term is missing before it", col)
    if tok.type == "VALUE" and str(tok)[0] in ":<>=!":
        if text[col - 2:col - 1] == " " and text[: col - 1].rstrip()[-1:].isalnum():
            op = re.match(r"!=|<=|>=|[:=<>!]", str(tok)).group(0)
            return QueryError(f"a space before '{op}'", col - 1,
                              "write a term without spaces: cost<=3, type:event")
        return QueryError(f"'{tok}' needs a field name before it", col, "a term reads FIELD:VALUE, e.g. type:event")
    if tok.type in ("OR", "AND"):
        return QueryError(f"'{tok}' needs a term on each side", col, 'to search for the word, quote it: "or"')
    if e.state is not None and _after_operator(text, col):
        return QueryError("a value is missing after the operator", col, "write it without a space: cost<=3")
    return QueryError(f"unexpected '{tok}'", col)


def _after_operator(text: str, col: int) -> bool:
    before = text[: col - 1]
    return before.rstrip() != before and before.rstrip()[-1:] in set(":<>=")


def _at_end(text: str) -> QueryError:
    end = len(text) + 1
    stripped = text.rstrip()
    if stripped[-1:] in set(":<>="):
        return QueryError("a value is missing after the operator", len(stripped), "e.g. cost<=3, type:event")
    if stripped.count("(") > stripped.count(")"):
        return QueryError("a parenthesis is never closed", stripped.rfind("(") + 1, "close it with ')'")
    if stripped[-1:] == "-":
        return QueryError("'-' needs a term after it", len(stripped))
    word = stripped.rsplit(None, 1)[-1].lower() if stripped else ""
    if word in ("or", "and"):
        return QueryError(f"'{word}' needs a term after it", len(stripped) - len(word) + 1)
    return QueryError("the query ends too early", end)
