"""Cell layouts of board zones: square grids (4- or 8-neighbour) and hex boards of rows.

A zone of kind `grid` has width x height cells; a zone of kind `hex` has rows of the given
lengths, centred on each other like a hex map (Terraforming Mars' Tharsis is rows 5..9..5).
Cells are numbered row by row from the top, left to right. Everything about positions
(neighbours, row and column of a cell, labels, lines) comes from here.

A grid that `grows` has no frame: its width and height limit the *span* of its cards (the
smallest rectangle around them), wherever that lies. It is kept in a frame of (2w-1) x (2h-1)
cells whose centre takes the first card, which holds every span of at most w x h through it;
rows and columns of a card count from the span's top-left corner, and a line is complete when
it holds w (or h) cards.
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
    limit: tuple[int, int] | None = None  # a growing grid: the largest span (width, height)
    width: int = 0  # a grid's frame width (cells per row)

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

    # --- growing grids: positions relative to the span of the cards
    def span(self, grid: list) -> tuple[int, int, int, int] | None:
        """(top, left, bottom, right), 0-based frame rows and columns of the occupied cells; None if empty."""
        w = self.width
        rows = [i // w for i, c in enumerate(grid) if c is not None]
        if not rows:
            return None
        cols = [i % w for i, c in enumerate(grid) if c is not None]
        return min(rows), min(cols), max(rows), max(cols)

    def fits(self, grid: list, cell: int) -> bool:
        """Whether a card in `cell` keeps the span within the limit."""
        if self.limit is None:
            return True
        box = self.span(grid)
        r, c = divmod(cell, self.width)
        if box is None:
            return cell == self.centre
        top, left, bottom, right = box
        lw, lh = self.limit
        return max(right, c) - min(left, c) < lw and max(bottom, r) - min(top, r) < lh

    @property
    def centre(self) -> int:
        return (len(self.rows) // 2) * self.width + self.width // 2

    def label_in(self, grid: list, cell: int) -> str:
        """A cell's label as a player reads it: on a growing grid, counted from the top-left corner of the
        span of its cards (a cell above or left of them is row or column 0, or less)."""
        if self.limit is None:
            return self.label(cell)
        box = self.span(grid)
        r, c = divmod(cell, self.width)
        if box is None:
            return "row 1, column 1"
        return f"row {r - box[0] + 1}, column {c - box[1] + 1}"

    def relative(self, grid: list, cell: int) -> tuple[int, int]:
        """1-based row and column of a cell, counted from the span's top-left corner (the frame's for a
        grid that does not grow)."""
        r, c = self.row_col(cell)
        if self.limit is None:
            return r, c
        box = self.span(grid)
        return (r - box[0], c - box[1]) if box is not None else (1, 1)

    def absolute(self, grid: list, row: int, col: int) -> int | None:
        """The cell at a row and column counted from the span's top-left corner (an empty growing grid:
        its centre, where the first card goes)."""
        if self.limit is None:
            return self.cell(row, col)
        box = self.span(grid)
        if box is None:
            return self.centre
        return self.cell(box[0] + row, box[1] + col)


def geometry(zone: dict) -> Geometry | None:
    """The layout of a zone declaration, or None for zones without cells."""
    if zone["kind"] == "grid" and zone.get("grows"):
        return _growing(zone["width"], zone["height"], zone.get("adjacency", 4))
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
    return Geometry(w * h, rows, tuple(nbs), cols, width=w)


@cache
def _growing(w: int, h: int, adjacency: int) -> Geometry:
    frame = _grid(2 * w - 1, 2 * h - 1, adjacency)
    return Geometry(frame.size, frame.rows, frame.neighbours, frame.columns, (w, h), frame.width)


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
