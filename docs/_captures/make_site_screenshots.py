"""Make the card-database screenshots of docs/catalog.rst: the Earth and Terraforming Mars card sites and
Earth's exported database in Datasette, in Debian's headless Chromium through Playwright.

    python docs/_captures/make_site_screenshots.py

Needs the dev extra (playwright, datasette) and /usr/bin/chromium. Datasette is served on 127.0.0.1 only,
for as long as its screenshot takes.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import sync_playwright

from cardsmith.catalog.export import export
from cardsmith.catalog.records import build_catalog
from cardsmith.catalog.site import build_site
from cardsmith.compiler import compile_pack
from cardsmith.compiler.packs import resolve_pack_ref

IMAGES = Path(__file__).resolve().parent.parent / "images"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        tmp = Path(tmp)
        cats = {ref: build_catalog(compile_pack(ref)) for ref in ("earth", "terraforming-mars")}
        for ref, cat in cats.items():
            build_site(cat, tmp / ref, pack_folder=resolve_pack_ref(ref))
        ctx = p.chromium.launch_persistent_context(str(tmp / "profile"), executable_path="/usr/bin/chromium",
                                                   args=ARGS, headless=True, viewport={"width": 1280, "height": 860})
        page = ctx.new_page()
        page.goto((tmp / "earth" / "index.html").as_uri() + "#q=" + quote("type:flora kind:tree cost<=3"))
        page.wait_for_function("window.lastSearch !== undefined")
        page.screenshot(path=str(IMAGES / "site-earth-index.png"))
        page.fill("#q", "樹冠")
        page.wait_for_timeout(200)
        page.screenshot(path=str(IMAGES / "site-earth-search-ja.png"))
        card = next(c for c in cats["terraforming-mars"].cards if "science" in c.traits.get("tag", ()) and c.abilities)
        page.goto((tmp / "terraforming-mars" / "cards" / f"{card.id}.html").as_uri())
        page.screenshot(path=str(IMAGES / "site-tm-card.png"))
        db = tmp / "earth.db"
        export(cats["earth"], "sqlite", db)
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "datasette", "serve", str(db), "--metadata",
                                   str(tmp / "earth.metadata.json"), "-h", "127.0.0.1", "-p", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            page.goto(f"http://127.0.0.1:{port}/earth/cards")
            # the column descriptions come first; show the facets and the first rows
            page.evaluate("document.querySelector('.facet-results').scrollIntoView()")
            page.screenshot(path=str(IMAGES / "datasette-earth-cards.png"))
        finally:
            server.terminate()
            server.wait(timeout=10)
        ctx.close()
    print("wrote", ", ".join(f.name for f in sorted(IMAGES.glob("*.png")) if "site" in f.name or "datasette" in f.name))


if __name__ == "__main__":
    main()
