"""A counter the rules keep for themselves (`internal: true`, docs/packs.rst "Counters and params") is never
shown to players: not in the rule reference, not in the terminal player's view."""

from __future__ import annotations

import shutil

import yaml

from cardsmith.compiler import compile_pack
from cardsmith.present.reference import build_reference
from cardsmith.present.render import render_markdown
from cardsmith.terminal.view import Viewer
from helpers import VMTEST


def test_an_internal_counter_is_in_no_reference(tmp_path):
    pack = tmp_path / "vm"
    shutil.copytree(VMTEST, pack)
    rules = yaml.safe_load((pack / "rules.yaml").read_text())
    rules["resources"]["tally"] = {"internal": True, "description": "a mark the rules move"}
    rules["counters"]["phase-mark"] = {"internal": True}
    (pack / "rules.yaml").write_text(yaml.safe_dump(rules), encoding="utf-8")
    res = compile_pack(pack)
    assert res.ok, res.diagnostics.items
    text = render_markdown(build_reference(res, "en"))
    assert "gold" in text  # an ordinary resource is listed
    assert "tally" not in text and "phase-mark" not in text and "phase mark" not in text


def test_the_terminal_shows_no_internal_counter():
    decls = {"gold": {}, "tally": {"internal": True, "start": 3}}
    shown = Viewer._counters({"gold": 2, "tally": 3}, decls)
    assert shown == "gold 2"
