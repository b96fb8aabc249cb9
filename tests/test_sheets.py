"""Card sheets as a player holds them: the other side of a double-sided card is a whole face, parts of a board
print as a table instead of blank cards, timing icons differ in shape (so in greyscale) and not only in colour,
and a card's numbers are icons (a sprout space drawn as many times as the card has them)."""

from __future__ import annotations

import base64
import dataclasses
import json
import re
from html.parser import HTMLParser

import pytest

from cardsmith.compiler.packs import builtin_packs
from cardsmith.compiler.pipeline import compile_pack
from cardsmith.present import icons
from cardsmith.present.reference import build_reference
from cardsmith.present.render import board_tables, render_html, render_sheets_html, sheet_cards
from helpers import ROOT, needs_pdf, weasyprint_module

MM_PER_PX = 25.4 / 96




@pytest.fixture(scope="module")
def earth_ref():
    res = compile_pack("earth")
    assert res.ok
    return build_reference(res, "en")


@pytest.fixture(scope="module")
def mars():
    res = compile_pack("terraforming-mars")
    assert res.ok
    return res


class Faces(HTMLParser):
    """The card faces of a sheet's HTML, page by page: each face's classes and the classes inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.pages: list[list[dict]] = []
        self.stack: list[dict | None] = []

    def handle_starttag(self, tag, attrs):
        cls = (dict(attrs).get("class") or "").split()
        if tag != "div":
            return
        if "page" in cls:
            self.pages.append([])
        face = None
        if "face" in cls:
            face = {"classes": cls, "inside": [], "text": []}
            self.pages[-1].append(face)
        self.stack.append(face)
        for f in self.stack:
            if f is not None and f is not face:
                f["inside"].extend(cls)

    def handle_endtag(self, tag):
        if tag == "div" and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        for f in self.stack:
            if f is not None:
                f["text"].append(data)


def _double_sided(ref, n: int = 3):
    """The reference cut down to n double-sided cards and their other sides (fast to lay out)."""
    fronts = [c for c in ref.cards if c.back_id and not c.is_back][:n]
    keep = {c.id for c in fronts} | {c.back_id for c in fronts}
    return dataclasses.replace(ref, cards=[c for c in ref.cards if c.id in keep]), fronts


def test_the_other_side_of_a_double_sided_card_is_a_whole_face(earth_ref):
    ref, fronts = _double_sided(earth_ref)
    html, pages = render_sheets_html(ref, backs=True)
    parsed = Faces()
    parsed.feed(html)
    assert pages == 2 and len(parsed.pages) == 2
    by_name = {c.name: c for c in ref.cards}
    backs = parsed.pages[1]
    assert len(backs) == len(fronts)
    for face in backs:
        # a real face (not the shared card back): the art band and the text box, as on its front
        assert "card-back" not in face["classes"]
        assert "band" in face["inside"] and "text" in face["inside"]
        assert any(t.strip() in by_name and by_name[t.strip()].is_back for t in face["text"])
    # the centring meant for the shared card back applies to it alone
    css = (ROOT / "present" / "templates" / "sheets.css").read_text(encoding="utf-8")
    for rule in re.findall(r"([^{}]+)\{[^}]*justify-content:\s*center", css):
        assert all("card-back" in sel for sel in rule.split(",")), rule


@needs_pdf
def test_a_back_face_prints_as_wide_as_its_front(earth_ref):
    """Laid out by the PDF engine: the other side keeps its 16 mm art band and its full-width text box."""
    weasyprint = weasyprint_module()
    ref, _ = _double_sided(earth_ref, 2)
    html, _ = render_sheets_html(ref, backs=True)
    doc = weasyprint.HTML(string=html).render()
    assert len(doc.pages) == 2

    def boxes(box):
        box = getattr(box, "_box", box)  # absolutely placed boxes sit behind a placeholder
        yield box
        for child in getattr(box, "children", None) or []:
            yield from boxes(child)

    def sizes(page, cls):
        return [(round(b.width * MM_PER_PX, 1), round(b.height * MM_PER_PX, 1)) for b in boxes(page._page_box)
                if type(b).__name__ == "BlockBox" and b.element is not None and b.element_tag == "div"
                and (b.element.get("class") or "").split()[:1] == [cls]]

    front, back = doc.pages
    assert sizes(back, "band") == sizes(front, "band") and all(h == 16.0 for _, h in sizes(back, "band"))
    text_widths = {w for w, _ in sizes(front, "text")}
    assert {w for w, _ in sizes(back, "text")} == text_widths and min(text_widths) > 50  # mm: the card's width


def test_map_spaces_print_as_a_table_not_as_cards(mars):
    ref = build_reference(mars, "en")
    board_types = {t for t, v in mars.pack.card_types.items() if (v or {}).get("board")}
    assert {"space", "basic-action", "standard-project", "milestone", "award"} <= board_types
    html, pages = render_sheets_html(ref)
    held = [c for c in ref.cards if c.type_id not in board_types]
    assert len(sheet_cards(ref)) == len(held) and pages == -(-len(held) // 9)
    parsed = Faces()
    parsed.feed(html)
    printed = "".join(t for page in parsed.pages for f in page for t in f["text"])
    spaces = [c for c in ref.cards if c.type_id == "space"]
    assert len(spaces) == 61
    assert "Tharsis Tholus" not in printed and "Claim a milestone" not in printed
    # each board type is one table, one row per space or action, with its bonuses and abilities
    tables = {t.type_id: t for t in board_tables(ref)}
    assert set(tables) == board_types
    assert len(tables["space"].rows) == 61
    section = html[html.index('id="board-space"'):html.index("</section>", html.index('id="board-space"'))]
    assert section.count("<tr>") == 62 and "B2 Tharsis Tholus" in section
    head = tables["space"].head
    tholus = next(cells for c, cells in tables["space"].rows if c.id == "mars-b2")
    assert tholus[head.index(ref.labels["traits"])] == "land · volcanic"
    assert "Claim a milestone" in html[html.index('id="board-basic-action"'):]
    # the rule reference lists them as a table as well, each row reachable from the index
    ref_html = render_html(ref)
    catalogue = ref_html[ref_html.index('id="catalogue"'):]
    assert '<table class="board narrow">' in catalogue and '<tr id="card-terraforming-mars-mars-b2">' in catalogue
    assert '<article class="card" id="card-terraforming-mars-mars-b2">' not in catalogue


def _geometry(style: str) -> str:
    """An icon's shape as drawn, without its colours: what is left of it in greyscale or for colour-blind eyes."""
    svg = base64.b64decode(re.search(r"base64,([A-Za-z0-9+/=]+)", style)[1]).decode()
    svg = re.sub(r"<defs>.*?</defs>", "", svg)
    return re.sub(r'(fill|stroke|stop-color)="[^"]*"', "", svg)


@pytest.mark.parametrize("pack", sorted(builtin_packs()))
def test_timing_icons_differ_in_shape_and_mark(pack):
    res = compile_pack(pack)
    assert res.ok
    for lang in ("en", "ja"):
        timings = build_reference(res, lang).timings
        shapes = [_geometry(i.style) for i in timings]
        assert len(set(shapes)) == len(shapes), [(i.timing, i.shape) for i in timings]
        assert len({i.letter for i in timings}) == len(timings), [(i.timing, i.letter) for i in timings]


def test_earth_timings_no_longer_look_alike(earth_ref):
    """Blue, black and brown (all 'B' once), green and goal: told apart by shape, mark and ink."""
    icon = {i.timing: i for i in earth_ref.timings}
    for group in (("blue", "black", "brown"), ("green", "goal")):
        assert len({_geometry(icon[t].style) for t in group}) == len(group)
        assert len({icon[t].letter for t in group}) == len(group)
    # the mark is printed in the ink that reads on its fill: dark on yellow, white on black
    assert "color:#1d1d1b" in icon["yellow"].style and "color:#ffffff" in icon["black"].style
    # the multicolour timing shows its three colours, as stripes
    multi = base64.b64decode(re.search(r"base64,([A-Za-z0-9+/=]+)", icon["multi"].style)[1]).decode()
    assert all(f'stop-color="{c}"' in multi for c in icon["multi"].colours) and len(icon["multi"].colours) == 3


def test_timing_shapes_without_a_declaration_follow_their_kind():
    got = icons.assign_shapes([("a", None, icons.KIND_SHAPES["activated"]), ("b", None, icons.KIND_SHAPES["activated"]),
                               ("c", None, icons.KIND_SHAPES["on-play"]), ("d", "circle", ()),
                               *[(f"x{i}", None, ()) for i in range(14)]])
    assert got["d"] == "circle" and got["a"] == "octagon" and got["c"] == "square"  # declared first
    assert got["b"] != got["a"]
    named = [got[n] for n in ("a", "b", "c", "d")] + [got[f"x{i}"] for i in range(8)]
    assert len(set(named)) == len(named)  # different while shapes last
    assert icons.REQUIRES_SHAPE not in got.values()  # the requirement's warning sign stays its own


def test_the_schema_offers_the_shapes_the_renderer_draws():
    schema = json.loads((ROOT / "compiler" / "schemas" / "rules.schema.json").read_text(encoding="utf-8"))
    text = json.dumps(schema)
    enums = re.findall(r'"shape": \{"enum": (\[[^\]]*\])', text)
    assert len(enums) == 2 and all(sorted(json.loads(e)) == sorted(icons.SHAPES) for e in enums)


def test_card_numbers_print_as_icons(earth_ref):
    """Earth's sprout and growth spaces as that many empty spaces, base VP in a leaf: no footer line of text."""
    card = next(c for c in earth_ref.cards if dict((b.stat, b.value) for b in c.badges).get("sprouts", 0) >= 2)
    badges = {b.stat: b for b in card.badges}
    assert badges["sprouts"].count == badges["sprouts"].value and badges["vp"].shape == "leaf"
    ref = dataclasses.replace(earth_ref, cards=[card])
    html, _ = render_sheets_html(ref)
    face = html[html.index('class="face"'):]
    assert face.count('class="pip"') == sum(b.count for b in card.badges if b.pips) >= badges["sprouts"].value
    assert 'class="num shape-leaf"' in face and 'class="stats"' not in face
    assert f"{badges['vp'].label} {badges['vp'].value}" in face  # the name of each number, for whoever hovers
