"""Cell layouts of board zones: square grids (4- or 8-neighbour) and hex boards of rows.

A zone of kind `grid` has width x height cells; a zone of kind `hex` has rows of the given
lengths, centred on each other like a hex map (Terraforming Mars' Tharsis is rows 5..9..5).
Cells are numbered row by row from the top, left to right. Everything about positions
(neighbours, row and column of a cell, labels, lines) comes from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Geometry:
    size: int
    rows: tuple[tuple[int, ...], ...]  # the cells of each row, left to right
    neighbours: tuple[tuple[int, ...], ...]  # per cell
    columns: tuple[tuple[int, ...], ...]  # square grids only; empty for hex boards

    def row_col(self, cell: int) -> tuple[int, int]:
        """1-based row and position in the row."""
        for r, cells in enumerate(self.rows):
            if cell in cells:
                return r + 1, cells.index(cell) + 1
        raise IndexError(cell)

    def cell(self, row: int, col: int) -> int | None:
        if 1 <= row <= len(self.rows) and 1 <= col <= len(self.rows[row - 1]):
            return self.rows[row - 1][col - 1]
        return None

    def label(self, cell: int) -> str:
        r, c = self.row_col(cell)
        return f"row {r}, column {c}"


def geometry(zone: dict) -> Geometry | None:
    """The layout of a zone declaration, or None for zones without cells."""
    if zone["kind"] == "grid":
        return _grid(zone["width"], zone["height"], zone.get("adjacency", 4))
    if zone["kind"] == "hex":
        return _hex(tuple(zone["rows"]))
    return None


@cache
def _grid(w: int, h: int, adjacency: int) -> Geometry:
    rows = tuple(tuple(r * w + c for c in range(w)) for r in range(h))
    cols = tuple(tuple(r * w + c for r in range(h)) for c in range(w))
    nbs = []
    for cell in range(w * h):
        r, c = divmod(cell, w)
        out = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if (dr or dc) and (adjacency == 8 or not (dr and dc)):
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < h and 0 <= cc < w:
                        out.append(rr * w + cc)
        nbs.append(tuple(out))
    return Geometry(w * h, rows, tuple(nbs), cols)


@cache
def _hex(lengths: tuple[int, ...]) -> Geometry:
    # "Doubled" x coordinates: rows are centred, so a row one shorter starts half a hex in.
    widest = max(lengths)
    coords: dict[tuple[int, int], int] = {}
    rows = []
    cell = 0
    for y, n in enumerate(lengths):
        start = widest - n
        row = []
        for i in range(n):
            coords[(start + 2 * i, y)] = cell
            row.append(cell)
            cell += 1
        rows.append(tuple(row))
    nbs = []
    for (x, y), _ in sorted(coords.items(), key=lambda kv: kv[1]):
        out = [coords[p] for p in ((x - 1, y - 1), (x + 1, y - 1), (x + 2, y), (x + 1, y + 1), (x - 1, y + 1),
                                    (x - 2, y)) if p in coords]
        nbs.append(tuple(out))
    return Geometry(cell, tuple(rows), tuple(nbs), ())
