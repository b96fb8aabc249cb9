"""The pre-commit hook other repositories use (.pre-commit-hooks.yaml): a well-formed hook definition, and its entry,
run with the changed files as pre-commit runs it, checks each file with its pack and reports on those files."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import ROOT

HOOKS = ROOT / ".pre-commit-hooks.yaml"
# The keys pre-commit's manifest schema knows; it warns on any other.
KNOWN_KEYS = {"id", "name", "entry", "language", "alias", "files", "exclude", "types", "types_or", "exclude_types",
              "additional_dependencies", "args", "always_run", "fail_fast", "pass_filenames", "description",
              "language_version", "log_file", "minimum_pre_commit_version", "require_serial", "stages", "verbose"}


@pytest.fixture(scope="module")
def hook() -> dict:
    hooks = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    assert isinstance(hooks, list)
    [h] = [h for h in hooks if h.get("id") == "cardsmith-validate"]
    return h


def test_the_hook_definition_has_what_pre_commit_requires(hook):
    assert {"id", "name", "entry", "language"} <= set(hook)
    assert set(hook) <= KNOWN_KEYS, set(hook) - KNOWN_KEYS
    assert hook["entry"] == "cardsmith validate"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is True


def test_the_hook_takes_card_yaml_and_nothing_else(hook):
    files, exclude = re.compile(hook["files"]), re.compile(hook["exclude"])

    def taken(path: str) -> bool:
        return bool(files.search(path)) and not exclude.search(path)

    assert taken("cards/earth/flora.yaml") and taken("packs/my-game/pack.yaml") and taken("rules.yaml")
    assert not taken("README.md") and not taken("cards/earth/NOTES.md") and not taken("tool.py")
    assert not taken(".pre-commit-config.yaml")


def entry_command(hook: dict) -> list[str]:
    """The entry as pre-commit runs it: the installed `cardsmith` of this interpreter's environment."""
    program, *args = shlex.split(hook["entry"])
    exe = Path(sys.executable).parent / program
    found = str(exe) if exe.exists() else shutil.which(program)
    if found is None:
        pytest.skip("the cardsmith command is not installed")
    return [found, *args]


@pytest.fixture()
def consumer(tmp_path) -> Path:
    """A repository of packs: Trinkets with a mistake in a second card file, and a clean card file."""
    pack = tmp_path / "cards" / "trinkets"
    shutil.copytree(ROOT / "docs" / "first-pack", pack)
    (pack / "extra.yaml").write_text(
        "defaults: {type: trinket}\ncards:\n  - {id: tin-cup, name: Tin Cup, abilities: {play: \"gain 1 cion\"}}\n")
    return tmp_path


def run_hook(hook: dict, repo: Path, *files: str) -> subprocess.CompletedProcess:
    return subprocess.run([*entry_command(hook), *files], cwd=repo, capture_output=True, text=True, timeout=120)


def test_the_entry_with_a_clean_card_file_passes(hook, consumer):
    done = run_hook(hook, consumer, "cards/trinkets/cards.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr


def test_the_entry_reports_the_broken_file_only_on_that_file(hook, consumer):
    done = run_hook(hook, consumer, "cards/trinkets/cards.yaml", "cards/trinkets/extra.yaml")
    assert done.returncode == 1
    assert "cards/trinkets/extra.yaml:3:" in done.stdout and "error[E101]" in done.stdout
    assert "cards/trinkets/cards.yaml:" not in done.stdout


def test_a_changed_rules_file_reports_on_the_whole_pack(hook, consumer):
    # rules.yaml gives the cards their meaning: a change there is checked against every card
    done = run_hook(hook, consumer, "cards/trinkets/rules.yaml")
    assert done.returncode == 1
    assert "cards/trinkets/extra.yaml:3:" in done.stdout


def test_a_yaml_file_outside_any_pack_is_reported_clearly(hook, consumer):
    (consumer / "compose.yaml").write_text("services: {}\n")
    done = run_hook(hook, consumer, "compose.yaml")
    assert done.returncode == 1
    assert "compose.yaml:1:1: error[E024]: this file is not inside a pack" in done.stdout
