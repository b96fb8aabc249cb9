"""A real editor as the client: Neovim, headless, with the set-up docs/editing.rst documents
(editors/neovim/cardsmith.lua), opens a card file with a typo, receives cardsmith's diagnostic and completes
the resource name. Skips, with the reason, where nvim is missing (.ci/run installs Debian's neovim)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from helpers import ROOT

pytest.importorskip("pygls")


def test_neovim_shows_the_diagnostic_and_completes_a_resource(tmp_path):
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.skip("nvim not found (Debian: apt-get install neovim; .ci/run installs it)")
    res = CliRunner().invoke(main, ["new", "pack", "demo", "--dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    cards = tmp_path / "demo" / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    assert '"gain 2 coin"' in text
    text = text.replace('"gain 2 coin"', '"gain 2 con"')
    cards.write_text(text, encoding="utf-8")
    lines = text.split("\n")
    row = next(i for i, line in enumerate(lines) if "gain 2 con" in line)
    col = lines[row].index("gain 2 con") + len("gain 2 con")
    out = tmp_path / "nvim.json"
    env = {**os.environ, "CARDSMITH_REPO": str(ROOT), "CARDSMITH_NVIM_OUT": str(out),
           "CARDSMITH_NVIM_LINE": str(row), "CARDSMITH_NVIM_COL": str(col),
           "CARDSMITH_LSP_CMD": json.dumps([sys.executable, "-m", "cardsmith", "lsp"]),
           "CARDSMITH_CACHE": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    fixtures = ROOT / "tests" / "fixtures" / "nvim"
    run = subprocess.run([nvim, "--headless", "-n", "-i", "NONE", "-u", str(fixtures / "init.lua"), str(cards),
                          "-c", f"luafile {fixtures / 'check.lua'}"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.is_file(), f"nvim wrote nothing (exit {run.returncode}): {run.stdout}{run.stderr}"
    got = json.loads(out.read_text(encoding="utf-8"))
    assert got["attached"], "the cardsmith server never attached to the buffer"
    (d,) = got["diagnostics"]
    assert (d["code"], d["message"], d["source"]) == ("E101", "unknown resource 'con'", "cardsmith")
    assert (d["line"], d["col"]) == (row, lines[row].index("con\""))
    assert "coin" in got["completion"]
