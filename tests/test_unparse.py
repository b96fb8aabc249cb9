"""Programs written back as text (compiler/unparse.py: macro arguments fitted into glossary phrases, option labels)
parse back to the same tree: brackets that decide what an expression means are kept."""

from __future__ import annotations

import pytest

from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.compiler.parse import parse_program, plain_locate
from cardsmith.compiler.unparse import text


def _tree(source: str):
    diags = Diagnostics()
    prog = parse_program(source, plain_locate("t.yaml"), diags)
    assert prog is not None, [d.message for d in diags.items]
    return prog


def _shape(node):
    """The tree without source positions."""
    if isinstance(node, tuple):
        return tuple(_shape(n) for n in node)
    fields = getattr(node, "__dataclass_fields__", None)
    if not fields:
        return node
    return (type(node).__name__, *(_shape(getattr(node, f)) for f in fields if f != "span"))


@pytest.mark.parametrize("source", [
    "gain (difficulty - 1) / 2 coin",        # Gaia's row of action spaces: not difficulty - 1/2
    "gain 10 - (3 - 2) coin",
    "gain (2 + 3) * 4 coin",
    "gain 2 * (3 + 4) - 1 coin",
    "if coin > 2 and (coin < 5 or coin = 9): gain 1 coin",
])
def test_text_parses_back_to_the_same_program(source):
    first = _tree(source)
    again = _tree(text(first.body[0]) if len(first.body) == 1 else source)
    assert _shape(again) == _shape(first), text(first.body[0])
