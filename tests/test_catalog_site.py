"""`cardsmith site`: the static card browser of Earth and Terraforming Mars, read as files (the browser test
drives it in Chromium): a page per card with its facts, generated text, source and bytecode; data and
scripts that need no network; balance figures from a simulation."""

from __future__ import annotations

import html
import json
import re

from catalog_sites import catalog, site
from click.testing import CliRunner

from cardsmith.cli import main

PACKS = ("earth", "terraforming-mars-corporate-era")


def data(ref: str) -> dict:
    text = (site(ref) / "assets" / "data.js").read_text(encoding="utf-8")
    assert text.startswith("window.CARDSMITH_SITE = ") and text.endswith(";\n")
    return json.loads(text[len("window.CARDSMITH_SITE = "):-2])


def test_every_card_has_a_face_on_the_index_and_a_page():
    for ref in PACKS:
        cat = catalog(ref)
        index = (site(ref) / "index.html").read_text(encoding="utf-8")
        faces = re.findall(r'<a class="card" id="card-([^"]+)"', index)
        assert faces == [c.id for c in cat.cards]
        assert index.count('<div class="face"') == len(cat.cards)  # the sheets' card template
        assert sorted(p.stem for p in (site(ref) / "cards").glob("*.html")) == sorted(c.id for c in cat.cards)
        assert [d["id"] for d in data(ref)["index"]["docs"]] == [c.id for c in cat.cards]


def test_a_card_page_shows_text_source_bytecode_and_references():
    cat = catalog("earth")
    page = html.unescape((site("earth") / "cards" / "mossback-oak.html").read_text(encoding="utf-8"))
    card = cat.card("mossback-oak")
    ability = card.abilities[0]
    assert ability.text["en"] in page and ability.text["ja"] in page
    assert f'<pre class="source" title="{ability.where}">grow 1</pre>' in page
    assert "mossback-oak yellow" in page and "PICK_HOLDER" in page and "ADD_PIECES" in page
    assert card.referenced_by and all(f'href="{cid}.html"' in page for cid, _ in card.referenced_by)
    tm = catalog("terraforming-mars-corporate-era")
    science = next(c for c in tm.cards if "science" in c.traits.get("tag", ()) and c.abilities)
    page = html.unescape((site("terraforming-mars-corporate-era") / "cards" / f"{science.id}.html")
                         .read_text(encoding="utf-8"))
    assert science.abilities[0].text["ja"] in page and "index.html#q=tag:science" in page


def test_the_site_needs_no_network():
    for ref in PACKS:
        for f in (site(ref)).rglob("*"):
            if f.suffix in (".html", ".js", ".css") and f.name != "minisearch.js":  # vendored, as published
                text = f.read_text(encoding="utf-8")
                assert not re.search(r'(src|href)="(https?:)?//', text), f
                assert "fetch(" not in text and "XMLHttpRequest" not in text and 'type="module"' not in text, f
        assert (site(ref) / "assets" / "LICENSE-minisearch.txt").read_text().startswith("Copyright")


def test_filters_offer_the_packs_own_types_timings_traits_and_cost():
    index = (site("earth") / "index.html").read_text(encoding="utf-8")
    assert 'data-field="type"' in index and 'data-field="timing"' in index
    assert 'data-field="kind"' in index and 'data-field="habitat"' in index
    assert '<span class="range" data-field="cost">' in index
    tm = (site("terraforming-mars-corporate-era") / "index.html").read_text(encoding="utf-8")
    assert 'data-field="tag"' in tm and '>science (' in tm


def test_site_command_with_balance_figures(tmp_path):
    out = tmp_path / "site"
    r = CliRunner().invoke(main, ["site", "docs/first-pack", "-o", str(out), "--games", "4", "--players", "2"])
    assert r.exit_code == 0, r.output
    assert "4 card pages" not in r.output and "card pages" in r.output
    page = (out / "cards" / "silver-cup.html").read_text(encoding="utf-8")
    assert "Statistics" in page and "From 4 simulated games of 2 players" in page
    (out / "cards" / "a-card-of-an-earlier-version.html").write_text("old", encoding="utf-8")
    assert CliRunner().invoke(main, ["site", "docs/first-pack", "-o", str(out)]).exit_code == 0
    assert sorted(p.stem for p in (out / "cards").glob("*.html")) == ["lucky-coin", "old-map", "silver-cup"]
    assert "Statistics" not in (out / "cards" / "silver-cup.html").read_text(encoding="utf-8")
    r = CliRunner().invoke(main, ["site", "no-such-pack", "-o", str(tmp_path / "x")])
    assert r.exit_code == 2 and "no pack 'no-such-pack'" in r.output


def test_the_sites_templates_and_scripts_are_package_data():
    # an installed (not editable) cardsmith must carry every file the site copies or renders
    import tomllib

    from conftest import ROOT

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folder = ROOT / conf["package-dir"]["cardsmith.catalog"]
    shipped = {p for pattern in conf["package-data"]["cardsmith.catalog"] for p in folder.glob(pattern) if p.is_file()}
    needed = {p for sub in ("templates", "static") for p in (folder / sub).rglob("*") if p.is_file()}
    assert needed and needed <= shipped, sorted(str(p.relative_to(folder)) for p in needed - shipped)
    assert "query.lark" in [p.name for p in (ROOT / "grammar").glob(conf["package-data"]["cardsmith.grammar"][0])]
