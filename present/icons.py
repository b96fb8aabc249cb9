"""Icons drawn as small SVG shapes: one per ability timing and per card number (stat) of a pack.

Colour alone does not tell icons apart in greyscale, for a colour-blind player, or across a table; so
every timing of a pack gets a shape of its own, and its mark (a letter or symbol) is printed in the ink
that reads on its fill. A pack declares a `shape` for a timing or a stat in rules.yaml; a timing without
one takes the first shape its kind prefers that no other timing of the pack has, and so on (each stat
likewise, among the stats). The shapes are data URLs used as CSS backgrounds, so the same icon prints in
HTML, in the PDF engine and on the card site without an image file or a tag from the pack.
"""

from __future__ import annotations

import base64
import hashlib
import math

INK_DARK, INK_LIGHT = "#1d1d1b", "#ffffff"
STROKE = "#1d1d1b"


def _polygon(n: int, radius: float, start_deg: float, inner: float | None = None) -> str:
    """A regular polygon (or, with `inner`, a star) around the centre of a 100 x 100 box."""
    pts = []
    steps = n * 2 if inner else n
    for i in range(steps):
        r = inner if inner and i % 2 else radius
        a = math.radians(start_deg + i * 360 / steps)
        pts.append(f"{50 + r * math.cos(a):.1f},{50 + r * math.sin(a):.1f}")
    return f'<polygon points="{" ".join(pts)}"/>'


# Each shape is SVG in a 100 x 100 box, drawn with the icon's fill and a dark outline.
SHAPES: dict[str, str] = {
    "circle": '<circle cx="50" cy="50" r="45"/>',
    "square": '<rect x="7" y="7" width="86" height="86" rx="9"/>',
    "diamond": '<polygon points="50,3 97,50 50,97 3,50"/>',
    "hexagon": _polygon(6, 48, 0),
    "octagon": _polygon(8, 48, 22.5),
    "pentagon": _polygon(5, 49, -90),
    "star": _polygon(5, 49, -90, inner=27),
    "shield": '<path d="M50 4 L92 15 V47 C92 71 73 87 50 97 C27 87 8 71 8 47 V15 Z"/>',
    "drop": '<path d="M50 3 C62 22 86 44 86 63 A36 36 0 0 1 14 63 C14 44 38 22 50 3 Z"/>',
    "leaf": '<path d="M50 3 C90 18 100 60 50 97 C0 60 10 18 50 3 Z"/>',
    "triangle": '<polygon points="50,5 96,93 4,93"/>',
    "triangle-down": '<polygon points="4,7 96,7 50,95"/>',
    "cross": '<polygon points="34,4 66,4 66,34 96,34 96,66 66,66 66,96 34,96 34,66 4,66 4,34 34,34"/>',
    "trapezoid": '<polygon points="22,12 78,12 97,88 3,88"/>',
    "parallelogram": '<polygon points="28,12 97,12 72,88 3,88"/>',
    "banner": '<polygon points="6,8 94,8 94,92 50,72 6,92"/>',
    "arrow": '<polygon points="4,14 66,14 96,50 66,86 4,86"/>',
    "heart": '<path d="M50 93 C18 70 4 52 4 32 A23 23 0 0 1 50 22 A23 23 0 0 1 96 32 C96 52 82 70 50 93 Z"/>',
}

# The shape a requirement line ('requires ...') is drawn with: a warning sign; no timing takes it.
REQUIRES_SHAPE = "triangle"

# What each kind of timing looks like first, then next when a timing of the same kind took that.
KIND_SHAPES: dict[str, tuple[str, ...]] = {
    "activated": ("circle", "octagon", "drop", "leaf", "pentagon", "cross"),
    "on-play": ("square", "pentagon", "banner", "trapezoid", "triangle-down"),
    "ongoing": ("hexagon", "octagon"),
    "end": ("shield", "star", "pentagon"),
    "condition": ("diamond", "triangle-down"),
    "scoring": ("star", "shield"),
    "value": ("octagon", "trapezoid"),
}
# Stats: a number printed in its shape (VP in a shield first, as most games print them).
STAT_SHAPES: tuple[str, ...] = ("shield", "circle", "square", "hexagon", "diamond", "pentagon", "octagon", "drop",
                                "leaf", "star", "banner", "heart", "cross", "trapezoid", "triangle-down")
ANY_SHAPE = tuple(s for s in SHAPES if s != REQUIRES_SHAPE)


def assign_shapes(items: list[tuple[str, str | None, tuple[str, ...]]]) -> dict[str, str]:
    """A shape for each (name, declared shape or None, preferred shapes), different for every name while
    shapes last: declared shapes first, then each name's first preference no one has, then its next, then
    any shape left. Past the number of shapes, shapes repeat (the marks still differ)."""
    out: dict[str, str] = {n: d for n, d, _ in items if d}
    taken = set(out.values())
    todo = [(n, prefs) for n, d, prefs in items if not d]
    for depth in range(max((len(p) for _, p in todo), default=0)):
        for n, prefs in todo:
            if n not in out and depth < len(prefs) and prefs[depth] not in taken:
                out[n] = prefs[depth]
                taken.add(prefs[depth])
    for n, _ in todo:
        if n not in out:
            free = [s for s in ANY_SHAPE if s not in taken] or list(ANY_SHAPE)
            out[n] = free[0]
            taken.add(free[0])
    return out


def unique_marks(items: list[tuple[str, str | None, str]]) -> dict[str, str]:
    """The mark of each (name, declared mark or None, label): declared marks as they are; otherwise the
    label's first letter, or its first two when another timing has that letter, or a letter and a number."""
    out = {n: d for n, d, _ in items if d}
    taken = set(out.values())
    for n, d, label in items:
        if d:
            continue
        word = label.strip() or n
        tries = [word[:1].upper(), word[:1].upper() + word[1:2].lower()]
        tries += [f"{word[:1].upper()}{i}" for i in range(2, 100)]
        mark = next(t for t in tries if t and t not in taken)
        out[n] = mark
        taken.add(mark)
    return out


def _luminance(colour: str) -> float:
    """Relative luminance of #rrggbb (WCAG)."""
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def ink(fills: list[str]) -> str:
    """The colour of a mark printed on these fills: dark on light fills, white on dark ones."""
    lum = sum(_luminance(c) for c in fills) / max(1, len(fills))
    return INK_DARK if lum > 0.30 else INK_LIGHT


def shape_svg(shape: str, fills: list[str], stroke: str = STROKE) -> str:
    """A standalone SVG of the shape; several fills are vertical stripes, left to right."""
    body = SHAPES.get(shape, SHAPES["circle"])
    defs, fill = "", fills[0] if fills else "#888888"
    if len(fills) > 1:
        n = len(fills)
        stops = "".join(f'<stop offset="{i / n:.3f}" stop-color="{c}"/><stop offset="{(i + 1) / n:.3f}" '
                        f'stop-color="{c}"/>' for i, c in enumerate(fills))
        gid = "g" + hashlib.sha1(f"{shape}{fills}".encode()).hexdigest()[:8]  # ids unique across icons
        defs = (f'<defs><linearGradient id="{gid}" gradientUnits="userSpaceOnUse" x1="0" y1="0" x2="100" y2="0">'
                f'{stops}</linearGradient></defs>')
        fill = f"url(#{gid})"
    # the paint goes on the shape itself: not every SVG renderer inherits a gradient fill from a group
    body = body.replace(" ", f' fill="{fill}" stroke="{stroke}" stroke-width="6" stroke-linejoin="round" ', 1)
    return f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">{defs}{body}</svg>'



def data_url(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii")


def icon_style(shape: str, fills: list[str]) -> str:
    """The CSS that draws an icon: its shape as the background, its mark in the ink that reads on it."""
    return (f"background-image:url({data_url(shape_svg(shape, fills))});color:{ink(fills)}")


def pip_style(shape: str, fill: str) -> str:
    """One empty space of a stat printed as spaces (a sprout space): the outline of its shape."""
    return f"background-image:url({data_url(shape_svg(shape, [fill]))})"
