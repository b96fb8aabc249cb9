"""Every rule scenario of every built-in pack passes (cards/<pack>/scenarios/*.yaml).

Each scenario cites the seed section it checks; this runs them through the same runner as
`cardsmith test`, one pytest item per scenario.
"""

from __future__ import annotations

import pytest

from cardsmith.compiler.diagnostics import Diagnostics, render_text
from cardsmith.scenarios import run_file, scenario_files
from helpers import ROOT

FILES = scenario_files([ROOT / "cards"])


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT / "cards")) for p in FILES])
def test_scenario_file(path):
    diags = Diagnostics()
    outcomes = run_file(path, diags)
    assert not diags.items, render_text(diags.items)
    assert outcomes, "no scenarios ran"
    failed = [f"{o.name} [{o.cites}]:\n    " + "\n    ".join(o.problems) for o in outcomes if not o.passed]
    assert not failed, "\n".join(failed)
