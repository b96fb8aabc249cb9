"""The hostile-input campaign (fuzz/campaign.py) runs in slices that add up to one campaign (issue 20: a
maintainer reruns 100,000 inputs; a slice is what one sitting on a small machine can do)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _campaign():
    spec = importlib.util.spec_from_file_location("campaign", ROOT / "fuzz" / "campaign.py")
    module = importlib.util.module_from_spec(spec)
    import sys
    sys.path.insert(0, str(ROOT / "fuzz"))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "fuzz"))
    return module


def test_a_slice_runs_the_cases_from_its_first_number(tmp_path, capsys):
    campaign = _campaign()
    out = tmp_path / "s.json"
    code = campaign.main(["--first", "500", "--inputs", "3", "--jobs", "1", "--seed", "5",
                          "--out", str(tmp_path / "findings"), "--json", str(out)])
    summary = json.loads(out.read_text())
    assert code == (1 if summary["findings"] else 0)
    assert summary["first"] == 500 and summary["inputs"] + summary["not_made"] == 3
    # case 500 of seed 5 is the case --case 500 replays: the slice's cases are the whole run's cases
    assert campaign._case_seed(5, 500) != campaign._case_seed(5, 0)


def test_slices_add_up_to_one_summary(tmp_path, capsys):
    campaign = _campaign()
    parts = []
    for first, n, peak in ((0, 4, 90), (4, 6, 120)):
        parts.append({"seed": 1, "first": first, "inputs": n, "not_made": 0, "findings": 1, "crashes": 1,
                      "hangs": 0, "over_memory": 0, "wall_seconds": 10, "per_target": {"validate": n},
                      "findings_by_kind": {"internal": 1}, "exit_codes": {"validate 1": n},
                      "worker_peak_rss_mb": [peak, 60], "slowest_case_seconds": first + 1.5})
    files = []
    for i, p in enumerate(parts):
        f = tmp_path / f"s{i}.json"
        f.write_text(json.dumps(p))
        files.append(str(f))
    assert campaign.main(["--merge", *files]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert whole["inputs"] == 10 and whole["findings"] == 2 and whole["per_target"] == {"validate": 10}
    assert whole["exit_codes"] == {"validate 1": 10} and whole["worker_peak_rss_mb"] == 120
    assert whole["slowest_case_seconds"] == 5.5 and whole["slices"] == [[1, 0, 4], [1, 4, 6]]
    # the table docs/reliability.rst includes
    assert campaign.main(["--merge", *files, "--rst"]) == 0
    table = capsys.readouterr().out
    rows = dict(re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in table.splitlines()
                if line.strip() and not line.startswith("="))
    assert rows["inputs"] == "10" and rows["inputs to validate"] == "10"
    assert rows["hangs (over 10 s of CPU, or a blocked read)"] == "0"
    assert rows["crashes (internal errors, exceptions, stray exit codes)"] == "2"
    assert rows["seeds and cases"] == "seed 1: 10 cases in 2 slice(s)"


def test_a_run_in_this_process_leaves_it_as_it_was(tmp_path, capsys):
    """--jobs 1 runs the cases in the caller's process under a memory cap: the cap and the environment are
    undone afterwards (a cap left behind made the next test's Chromium abort at start)."""
    import os
    import resource

    campaign = _campaign()
    limit, environ = resource.getrlimit(resource.RLIMIT_AS), dict(os.environ)
    campaign.main(["--first", "0", "--inputs", "1", "--jobs", "1", "--seed", "3",
                   "--out", str(tmp_path / "findings"), "--json", str(tmp_path / "s.json")])
    assert resource.getrlimit(resource.RLIMIT_AS) == limit
    assert dict(os.environ) == environ
