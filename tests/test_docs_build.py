"""The documentation builds with warnings as errors: every effect-language example compiles,
every CLI output shown is real, and the generated references match the code."""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("sphinx_click")

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_docs_build(tmp_path):
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(tmp_path / "doctrees"),
           str(DOCS), str(tmp_path / "html")]
    run = subprocess.run(cmd, capture_output=True, text=True)  # no time limit: a loaded machine is slow, not wrong
    assert run.returncode == 0, run.stdout + run.stderr
