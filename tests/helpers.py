"""Shared test helpers: run an effect-language program on a described state."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cardsmith.compiler.diagnostics import Diagnostics, render_text
from cardsmith.scenarios import Outcome, run_file

ROOT = Path(__file__).resolve().parent.parent
VMTEST = ROOT / "tests" / "fixtures" / "packs" / "vmtest"


def run_scenario(tmp_path: Path, scenario: dict, pack: str | Path = VMTEST) -> Outcome:
    """Run one scenario (a dict in the scenario-file format) and return its outcome with the game."""
    f = tmp_path / "scenario.yaml"
    f.write_text(yaml.safe_dump({"pack": str(pack), "scenarios": [{"name": "t", **scenario}]}), encoding="utf-8")
    diags = Diagnostics()
    outs = run_file(f, diags)
    assert not diags.items, render_text(diags.items)
    assert len(outs) == 1
    return outs[0]


def weasyprint_module():
    """WeasyPrint, or None where it (or the Pango library it needs) is not installed."""
    try:
        import weasyprint
    except (ImportError, OSError):
        return None
    return weasyprint


needs_pdf = pytest.mark.skipif(weasyprint_module() is None, reason="weasyprint is not installed (the 'pdf' extra)")
