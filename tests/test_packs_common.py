"""What holds for every built-in pack, whatever its game: data only, deterministic, scenarios with sources.

A new pack folder under cards/ is picked up by itself.
"""

from __future__ import annotations

import re

import pytest
import yaml
from conftest import BUILTIN_PACKS, ROOT

from cardsmith.runtime import Game

# A scenario says where its rule comes from: a seed's write-up (seeds/NNN_....txt), a printed card, a
# reference file of card facts (.json), or the published rules.
SOURCE = re.compile(r"seeds/\d{3}_[0-9a-f]+\.txt|\bcards?\b|\.json\b|\bpublished\b")


@pytest.mark.parametrize("pack", BUILTIN_PACKS)
def test_the_pack_folder_holds_no_python(pack):
    folder = ROOT / "cards" / pack
    code = [p for p in folder.rglob("*") if p.suffix in (".py", ".pyc", ".so") or p.name == "__pycache__"]
    assert not code, code


@pytest.mark.parametrize("pack", BUILTIN_PACKS)
def test_same_seed_same_log(pack, compiled):
    p = compiled(pack)
    players = p.players[0]
    a, b = Game(p, players, seed=5), Game(p, players, seed=5)
    a.play()
    b.play()
    assert a.log_lines() == b.log_lines()
    c = Game(p, players, seed=6)
    c.play()
    assert c.log_hash() != a.log_hash()


@pytest.mark.parametrize("pack", [p for p in BUILTIN_PACKS if (ROOT / "cards" / p / "scenarios").is_dir()])
def test_every_scenario_cites_its_source(pack):
    files = sorted((ROOT / "cards" / pack / "scenarios").glob("*.yaml"))
    assert files
    uncited = []
    for f in files:
        for sc in yaml.safe_load(f.read_text(encoding="utf-8"))["scenarios"]:
            if not SOURCE.search(sc.get("cites", "")):
                uncited.append(f"{f.name}: {sc['name']}")
    assert not uncited, uncited
