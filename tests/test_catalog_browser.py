"""The card site in a real browser: Debian's headless Chromium driven through Playwright's Python API, over
the Earth and Terraforming Mars (Corporate Era, the largest pack) sites opened from file://.

A Japanese word finds its card, a filter narrows the list to the count the query language gives, a card
page shows its generated text, and no page logs an error. The page's query language answers as
`cardsmith query` does. The search latency is measured with the page's own clock (performance.now) and
reported (printed, and written to a file `python -m benchmarks` reads), never asserted.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
from pathlib import Path

import pytest
from catalog_sites import catalog, site

from cardsmith.catalog.fields import search_index
from cardsmith.catalog.query import QueryErrors, run

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
# --disable-dev-shm-usage: a container's /dev/shm may be small (CI's is mounted twice, which defeats the
# Debian launcher's own check for it), and Chromium aborts when it runs out there.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
LATENCY_FILE = Path(tempfile.gettempdir()) / "cardsmith-site-search-latency.json"
EARTH, TM = "earth", "terraforming-mars-corporate-era"

pytestmark = pytest.mark.skipif(CHROMIUM is None,
                                reason="needs Chromium (Debian package chromium; .ci/run installs it)")


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright package (the dev extra)")
    with sync_api.sync_playwright() as p, tempfile.TemporaryDirectory(prefix="cardsmith-chromium-") as root:
        ctx = None
        for attempt in range(2):  # a browser that dies while starting (seen once in CI) gets one more start
            try:
                ctx = p.chromium.launch_persistent_context(str(Path(root) / f"profile-{attempt}"),
                                                           executable_path=CHROMIUM, args=ARGS, headless=True,
                                                           viewport={"width": 1280, "height": 900})
                break
            except sync_api.Error as e:
                if attempt == 1:
                    raise
                print(f"Chromium did not start, starting it once more: {e}")
        yield ctx
        ctx.close()


class Page:
    """A page and every error it logged (console errors, uncaught exceptions, failed loads)."""

    def __init__(self, ctx, url: str) -> None:
        self.errors: list[str] = []
        self.page = ctx.new_page()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("requestfailed", lambda r: self.errors.append(f"failed to load {r.url}"))
        self.page.goto(url)

    def search(self, text: str) -> dict:
        self.page.fill("#q", text)
        return self.page.evaluate("window.lastSearch")

    def shown(self) -> list[str]:
        return self.page.evaluate("""Array.from(document.querySelectorAll('#cards .card'))
            .filter(a => !a.hidden).map(a => a.dataset.id)""")


def index_page(browser, ref: str) -> Page:
    page = Page(browser, (site(ref) / "index.html").as_uri())
    page.page.wait_for_function("window.lastSearch !== undefined")
    return page


def python_ids(ref: str, query: str) -> list[str]:
    cat = catalog(ref)
    return [cat.cards[i].id for i in run(search_index(cat), query)]


@pytest.mark.parametrize("ref, word, card", [(EARTH, "樹冠", "cathedral-canopy"), (EARTH, "堆肥", None),
                                             (TM, "酸素", None)])
def test_a_japanese_word_finds_its_cards(browser, ref, word, card):
    page = index_page(browser, ref)
    result = page.search(word)
    shown = page.shown()
    assert result["count"] == len(shown) and not result["error"]
    # every card whose generated Japanese text or name holds the word is found (words have no spaces)
    holding = [c.id for c in catalog(ref).cards
               if any(word in a.text["ja"] for a in c.abilities) or word in c.names["ja"]]
    assert holding and set(holding) <= set(shown)
    if card:
        assert card in shown
    assert page.errors == []


def test_japanese_text_is_tokenised_into_bigrams(browser):
    page = index_page(browser, EARTH)
    assert page.page.evaluate("CardSite.tokenize('芽スペースを置く', true)") == \
        ["芽ス", "スペ", "ペー", "ース", "スを", "を置", "置く"]
    assert page.page.evaluate("CardSite.tokenize('Gain 2 soil. 樹冠', false)") == ["gain", "2", "soil", "樹冠", "冠"]
    # digits next to Japanese text split off ("1枚堆肥" is "1" and "枚堆肥")
    assert page.page.evaluate("CardSite.tokenize('1枚堆肥', true)") == ["1", "枚堆", "堆肥"]


def test_filters_narrow_the_list_to_the_expected_count(browser):
    page = index_page(browser, EARTH)
    page.page.select_option('select[data-field="type"]', "event")
    assert page.page.inner_text("#count") == str(len(python_ids(EARTH, "type:event")))
    page.page.select_option('select[data-field="type"]', "flora")
    page.page.select_option('select[data-field="kind"]', "tree")
    page.page.fill('.range[data-field="cost"] input[data-op="<="]', "3")
    want = python_ids(EARTH, "type:flora kind:tree cost<=3")
    assert page.shown() == want and page.page.inner_text("#count") == str(len(want))
    assert page.page.inner_text("#effective") == "type:flora kind:tree cost<=3"
    tm = index_page(browser, TM)
    tm.page.select_option('select[data-field="tag"]', "science")
    assert tm.shown() == python_ids(TM, "tag:science")
    assert page.errors == [] and tm.errors == []


PARITY = {EARTH: ["type:event", "kind:tree cost<=3 sort:-vp", "-uses:draw timing:green", "gains:soil or pays:soil",
                  "(habitat:wet or habitat:cold) -kind:tree sort:cost limit:7", "original:false", "type:現象",
                  'text:"compost" name:oak', "source:grow copies>=2", "vp!=1 sort:-cost sort:name"],
          TM: ["tag:science vp>=2", "targets:chosen-player", "trigger:play", "uses:raise -type:event sort:-cost",
               "pack:terraforming-mars-corporate-era", "text:酸素 cost<10"]}
BAD = ["cost <= 3", "tpe:event", "type:evnt cost<x", "(a or b", "a)", 'text:"abc', "a or", "kind<3", ":x",
       "sort:nothing limit:x", "-(sort:cost)", "cost<=", "type:event)", "kind:tree -", "()", "cost: (a)", "and"]


@pytest.mark.parametrize("ref", [EARTH, TM])
def test_the_page_answers_queries_as_the_command_does(browser, ref):
    page = index_page(browser, ref)
    for query in PARITY[ref]:
        got = page.page.evaluate("""q => CardQuery.run(CARDSMITH_SITE.index, q).found
            .map(i => CARDSMITH_SITE.index.docs[i].id)""", query)
        assert got == python_ids(ref, query), query
    for query in BAD:
        got = page.page.evaluate("""q => { try { CardQuery.run(CARDSMITH_SITE.index, q); return null; }
            catch (e) { return (Array.isArray(e) ? e : [e]).map(x => [x.col, x.message]); } }""", query)
        try:
            python_ids(ref, query)
            want = None
        except QueryErrors as e:
            want = [[x.col, x.message] for x in e.errors]
        assert got == want, query
    page.search("cost <= 3")
    assert "query:1:5: error: a space before '<='" in page.page.inner_text("#error")
    assert page.errors == []


def test_a_card_page_shows_its_generated_text(browser):
    for ref in (EARTH, TM):
        card = next(c for c in catalog(ref).cards if c.abilities and len(c.abilities[0].text["en"]) < 300)
        page = Page(browser, (site(ref) / "cards" / f"{card.id}.html").as_uri())
        assert page.page.inner_text("p.generated[lang=en] >> nth=0") == card.abilities[0].text["en"]
        assert page.page.inner_text("p.generated[lang=ja] >> nth=0") == card.abilities[0].text["ja"]
        assert page.page.locator(".faces .face").count() == 2  # the printed face, in English and Japanese
        page.page.click("nav a >> nth=0")  # back to the index, by a relative link that works on file://
        page.page.wait_for_function("window.lastSearch !== undefined")
        assert page.errors == []


def test_search_latency_on_the_largest_pack(browser):
    """Measured in the page with performance.now(); reported, not asserted."""
    page = index_page(browser, TM)
    queries = ["酸素", "plant", "tag:science", "tag:space vp>=1 sort:-cost", "temperature -type:event", "city",
               "(tag:power or tag:energy) cost<=15", "ocean", "card", "draw"]
    timings = page.page.evaluate("""qs => {
        const search = [], update = [];
        for (let r = 0; r < 5; r++) for (const q of qs) {
          search.push(CardSite.search(q).ms);
          document.getElementById('q').value = q;
          const t = performance.now(); CardSite.update(false); update.push(performance.now() - t);
        }
        return {search, update};
    }""", queries)
    report = {"pack": TM, "cards": len(catalog(TM).cards), "queries": len(timings["search"]),
              "search_median_ms": statistics.median(timings["search"]), "search_max_ms": max(timings["search"]),
              "update_median_ms": statistics.median(timings["update"]), "update_max_ms": max(timings["update"])}
    LATENCY_FILE.write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(f"\nsite search latency ({TM}, {report['cards']} cards, {report['queries']} searches, performance.now()): "
          f"search median {report['search_median_ms']:.1f} ms, max {report['search_max_ms']:.1f} ms; with the "
          f"page update median {report['update_median_ms']:.1f} ms, max {report['update_max_ms']:.1f} ms "
          f"-> {LATENCY_FILE}")
    assert page.errors == []
