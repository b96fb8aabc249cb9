"""Source spans: where in a source file a program, an instruction or a diagnostic comes from.

Spans travel from the YAML loader through the compiler into the bytecode's span table, so a
runtime fault can still name the card file, line and column.
"""

from __future__ import annotations

from dataclasses import dataclass

from .inputs import printable


@dataclass(frozen=True, slots=True)
class Span:
    """A place in a source file: 1-based line and column, end exclusive."""

    file: str
    line: int
    col: int
    end_line: int | None = None
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{printable(self.file)}:{self.line}:{self.col}"

    def shifted(self, line_offset: int, col: int) -> Span:
        return Span(self.file, self.line + line_offset, col)


NO_SPAN = Span("<unknown>", 0, 0)
