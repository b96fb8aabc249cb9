"""Rule references and card sheets: every section is there, nothing from a card becomes markup, and the
sheets have one page per nine cards (twice that with backs)."""

from __future__ import annotations

import base64
import math
import re
import shutil

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.compiler.packs import builtin_packs
from cardsmith.compiler.pipeline import compile_pack
from cardsmith.present import describe, reference, render
from cardsmith.present.describe import LANGS
from cardsmith.present.reference import build_reference, timing_colours, timing_mark
from cardsmith.present.render import render_html, render_markdown, render_rst, render_sheets_html, sheet_pages
from cardsmith.present.text_english import EnglishRealiser
from cardsmith.present.text_realise import language_data
from helpers import ROOT, needs_pdf, weasyprint_module

EVIL = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def earth():
    res = compile_pack("earth")
    assert res.ok
    return res


@pytest.fixture
def evil_pack(tmp_path):
    """The minimal pack with cards whose names and words try to inject markup, and 11 cards in all."""
    pack = tmp_path / "evil"
    shutil.copytree(ROOT / "tests" / "fixtures" / "valid" / "minimal", pack)
    extra = "".join(f"  - {{id: filler-{i}, name: Filler {i}, type: plant, abilities: {{green: \"gain 1 soil\"}}}}\n"
                    for i in range(8))
    (pack / "cards.yaml").write_text((pack / "cards.yaml").read_text(encoding="utf-8") + f"""  - id: evil
    name: "{EVIL}"
    names: {{ja: "<b>x</b>"}}
    type: plant
    abilities: {{green: "gain 1 soil"}}
""" + extra, encoding="utf-8")
    rules = pack / "rules.yaml"
    rules.write_text(rules.read_text(encoding="utf-8") + """
glossary:
  soil: {en: "<i>soil</i>", ja: "<img src=x onerror=alert(1)>"}
""", encoding="utf-8")
    return pack


@pytest.mark.parametrize("lang", LANGS)
def test_earth_reference_has_every_section(earth, lang):
    ref = build_reference(earth, lang)
    html, text = render_html(ref), render_markdown(ref)
    for step in earth.pack.scoring:
        name = (step.get("names") or {}).get(lang) or step["name"]
        assert name in html, name
        assert render.md(name) in text, name
    # the activation order: its program as text (the island and climate before or after the tableau), and the
    # 4x4 tableau it walks drawn, numbered 1..16
    order = ("island or climate", "tableau") if lang == "en" else ("島・気候", "場")
    section = html[html.index('id="activation"'):html.index('id="timings"')]
    for word in order:
        assert word in section and word in text
    assert "<td>16</td>" in section and "<td class=\"first\">1</td>" in section
    assert "13 → 14 → 15 → 16" in text and " 1 →  2 →  3 →  4" in text
    # each action with the active player's and the other players' parts
    labels = ref.labels
    assert html.count(f"<dt>{labels['active']}</dt>") == 4 and html.count(f"<dt>{labels['others']}</dt>") == 4
    # every card in the catalogue and the index
    for c in earth.pack.cards:
        assert f'id="card-earth-{c.id}"' in html
        assert f'href="#card-earth-{c.id}"' in html


@pytest.mark.parametrize("pack", sorted(builtin_packs()))
def test_every_builtin_pack_has_a_reference(pack):
    res = compile_pack(pack)
    assert res.ok
    for lang in LANGS:
        ref = build_reference(res, lang)
        assert len(ref.cards) == len(res.pack.cards)
        html = render_html(ref)
        assert ref.labels["scoring"] in html
        assert render_rst(ref)


def test_nothing_from_a_pack_becomes_markup(evil_pack):
    res = compile_pack(evil_pack)
    assert res.ok, res.diagnostics.items
    for lang in LANGS:
        ref = build_reference(res, lang)
        html = render_html(ref)
        assert "<script>" not in html and "<b>x</b>" not in html and "<img" not in html and "<i>soil" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html or "&lt;b&gt;x&lt;/b&gt;" in html
        sheets, _ = render_sheets_html(ref)
        assert "<script>" not in sheets and "<b>x</b>" not in sheets and "<img" not in sheets
        md = render_markdown(ref)
        assert "<script>" not in md and "<b>x" not in md and "<img" not in md
        rst = render_rst(ref)
        assert "<script>" not in rst.replace("\\<script\\>", "")
    assert "&lt;b&gt;x&lt;/b&gt;" in render_html(build_reference(res, "ja"))


def test_sheet_layout_pages(earth):
    ref = build_reference(earth, "en")
    n = len(ref.cards)
    fronts = sum(1 for c in ref.cards if not c.is_back)
    assert len(sheet_pages(ref)) == math.ceil(n / 9)
    pages = sheet_pages(ref, "letter", backs=True)
    assert len(pages) == 2 * math.ceil(fronts / 9)
    assert [p.kind for p in pages[:4]] == ["front", "back", "front", "back"]
    # the back of each card sits behind it: same row, mirrored column; a double-sided card shows its other side
    front, back = pages[0], pages[1]
    for fs, bs in zip(front.slots, back.slots, strict=True):
        centres = (fs.x + fs.bl + render.CARD_W / 2) + (bs.x + bs.bl + render.CARD_W / 2)
        assert abs(centres - render.PAPERS["letter"][0]) < 0.01
        if fs.card.back_id:
            assert bs.card.id == fs.card.back_id
    # every card fits the paper with its bleed; crop marks stay on the page
    for paper, (pw, ph) in render.PAPERS.items():
        for p in sheet_pages(ref, paper):
            for s in p.slots:
                assert s.x >= 0 and s.y >= 0 and s.x + s.w <= pw and s.y + s.h <= ph
            for m in p.marks:
                assert m["x"] >= 0 and m["y"] >= 0 and m["x"] + m["w"] <= pw and m["y"] + m["h"] <= ph


@needs_pdf
def test_sheets_pdf_page_count(evil_pack, tmp_path):
    weasyprint = weasyprint_module()
    res = compile_pack(evil_pack)
    cards = len(res.pack.cards)
    for backs in (False, True):
        out = tmp_path / f"cards-{backs}.pdf"
        args = ["sheets", str(evil_pack), "-o", str(out), "--paper", "letter", "--lang", "ja"]
        run = CliRunner().invoke(main, [*args, "--backs"] if backs else args)
        assert run.exit_code == 0, run.output
        assert out.read_bytes().startswith(b"%PDF")
        html, pages = render_sheets_html(build_reference(res, "ja"), "letter", backs)
        assert pages == math.ceil(cards / 9) * (2 if backs else 1)
        assert len(weasyprint.HTML(string=html).render().pages) == pages


@needs_pdf
def test_reference_pdf(evil_pack, tmp_path):
    out = tmp_path / "ref.pdf"
    run = CliRunner().invoke(main, ["reference", str(evil_pack), "--format", "pdf", "--lang", "ja", "-o", str(out)])
    assert run.exit_code == 0, run.output
    assert out.read_bytes().startswith(b"%PDF")


def test_reference_md_and_html_commands(tmp_path):
    out = tmp_path / "earth.md"
    run = CliRunner().invoke(main, ["reference", "earth", "--format", "md", "-o", str(out)])
    assert run.exit_code == 0, run.output
    assert "## Scoring" in out.read_text(encoding="utf-8")
    run = CliRunner().invoke(main, ["reference", "earth", "--lang", "ja"])
    assert run.exit_code == 0 and "得点計算" in run.output and run.output.lstrip().startswith("<!DOCTYPE html>")


def test_missing_weasyprint_says_how_to_install(monkeypatch, tmp_path):
    def missing():
        raise render.PdfUnavailable(render.PDF_HELP)

    monkeypatch.setattr(render, "pdf_engine", missing)
    for args in (["reference", "earth", "--format", "pdf", "-o", str(tmp_path / "r.pdf")],
                 ["sheets", "earth", "-o", str(tmp_path / "c.pdf")]):
        run = CliRunner().invoke(main, args)
        assert run.exit_code == 2
        assert "cardsmith[pdf]" in run.output and "Traceback" not in run.output
        assert not (tmp_path / "r.pdf").exists()


def test_pack_templates_override(evil_pack, tmp_path):
    (evil_pack / "templates").mkdir()
    (evil_pack / "templates" / "reference.html.j2").write_text("<p>{{ ref.pack_name }} / {{ ref.cards|length }}</p>",
                                                              encoding="utf-8")
    out = tmp_path / "r.html"
    run = CliRunner().invoke(main, ["reference", str(evil_pack), "-o", str(out)])
    assert run.exit_code == 0, run.output
    assert out.read_text(encoding="utf-8") == "<p>Minimal / 11</p>"


def test_commands_explain_themselves():
    for cmd in ("describe", "reference", "sheets"):
        run = CliRunner().invoke(main, [cmd, "--help"])
        assert run.exit_code == 0 and "Example" in run.output


def test_labels_come_from_the_language_data(earth, monkeypatch):
    for lang in LANGS:
        assert build_reference(earth, lang).labels == language_data(lang)["labels"]
    assert not hasattr(reference, "LABELS")  # no words of a language in the code

    class Renamed(EnglishRealiser):  # English with one label changed in its data, nothing else
        def __init__(self, voc, pack) -> None:
            data = {**language_data("en"), "labels": {**language_data("en")["labels"], "scoring": "Counting up"}}
            super().__init__(voc, pack, data=data)

    monkeypatch.setitem(describe.LANGUAGES, "en-renamed", Renamed)
    html = render_html(build_reference(earth, "en-renamed"))
    assert "Counting up" in html


def test_timing_icons_are_the_declared_colour_and_icon(earth):
    declared = earth.pack.timings
    for lang in LANGS:
        icons = {i.timing: i for i in build_reference(earth, lang).timings}
        assert icons["green"].colours == [declared["green"]["colour"]] and icons["green"].letter == "G"
        assert icons["black"].letter == "K" and icons["goal"].letter == "★"  # the same in every language
        # no colour of its own: the colours of the timings it matches
        assert icons["multi"].colours == [declared[t]["colour"] for t in declared["multi"]["matches"]]
        assert icons["ongoing"].colours == [declared["brown"]["colour"]]


def test_timing_colour_and_mark_fallbacks():
    timings = {"sky": {"colour": "#123456"}, "mixed": {"matches": ["sky", "plain"]}, "plain": {}, "green": {}}
    assert timing_colours("sky", timings) == ["#123456"]
    assert timing_colours("mixed", timings) == ["#123456"]  # the matched timings that have a colour
    plain = timing_colours("plain", timings)
    assert plain == timing_colours("plain", {}) and re.fullmatch(r"#[0-9a-f]{6}", plain[0])  # stable, from the name
    assert timing_colours("green", timings) != ["#3d9a3d"]  # a name is only a name: not drawn green
    assert timing_mark({"icon": "∞"}, "ongoing") == "∞"
    assert timing_mark({}, "brown") == "B"  # no icon: the label's first letter


def test_a_pack_declares_its_timing_icons(tmp_path):
    pack = tmp_path / "icons"
    shutil.copytree(ROOT / "tests" / "fixtures" / "valid" / "minimal", pack)
    rules = pack / "rules.yaml"
    declared = 'green: {kind: activated, types: [plant], colour: "#0a0b0c", icon: "✿", shape: star}'
    rules.write_text(rules.read_text(encoding="utf-8").replace("green: {kind: activated, types: [plant]}", declared),
                     encoding="utf-8")
    res = compile_pack(pack)
    assert res.ok, res.diagnostics.items
    html = render_html(build_reference(res, "en"))
    span = re.search(r'<span class="icon shape-star" style="background-image:url\(data:image/svg\+xml;base64,'
                     r'([A-Za-z0-9+/=]+)\);color:#ffffff" title="green">✿</span>', html)
    assert span, "the declared mark, in white on the dark star"
    svg = base64.b64decode(span[1]).decode()
    assert 'fill="#0a0b0c"' in svg and svg.count(" ") and "<polygon" in svg  # the declared colour, a star
