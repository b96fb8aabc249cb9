"""What refusing a hostile pack costs: the CPU time of compiling the minimal pack with one hostile file added,
against compiling the minimal pack itself in the same run. (tests/test_hostile.py checks each is refused with a
located diagnostic and bounded memory; the time is measured here, never asserted in a test.)"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from cardsmith.compiler import compile_pack
from cardsmith.compiler.diagnostics import Diagnostics

from .report import Table
from .sections import _best

ROOT = Path(__file__).resolve().parent.parent
MINIMAL = ROOT / "tests" / "fixtures" / "valid" / "minimal"
CARD = "cards:\n  - {id: hostile-card, name: Hostile, type: plant, abilities: {green: \"%s\"}}\n"


def _laughs(levels: int) -> str:
    text = 'cards: []\nlol: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    prev = "a"
    for i in range(levels - 1):
        text += f"l{i}: &l{i} [" + ",".join([f"*{prev}"] * 9) + "]\n"
        prev = f"l{i}"
    return text


def _doubling(levels: int) -> str:
    rules = (MINIMAL / "rules.yaml").read_text(encoding="utf-8")
    macros = '  "m0 go": "draw 1"\n' + "".join(f'  "m{i} go": "m{i - 1} go, m{i - 1} go"\n' for i in range(1, levels))
    return rules.replace("macros:\n", "macros:\n" + macros).replace('game: "nothing"', f'game: "m{levels - 1} go"')


CASES = {
    "alias bomb, 30 levels": {"bomb.yaml": _laughs(30)},
    "nesting 100,000 deep": {"deep.yaml": "cards: " + "[" * 100_000 + "]" * 100_000 + "\n"},
    "a 10 MB card file": {"big.yaml": "cards:\n" + "  - {id: oak, name: Oak, type: plant}\n" * 280_000},
    "a number of a million digits": {"num.yaml": "cards:\n  - {id: oak, name: Oak, type: plant, copies: "
                                                 + "9" * 1_000_000 + "}\n"},
    "an effect text of 900,000 characters": {"fx.yaml": CARD % ("gain 1 soil, " * 70_000 + "gain 1 soil")},
    "22 macros that double": {"rules.yaml": _doubling(22)},
}


def hostile_rows(table: Table, repeat: int) -> None:
    table.section("hostile packs: CPU to refuse each, against compiling the minimal pack (same run)")
    root = Path(tempfile.mkdtemp(prefix="cardsmith-bench-hostile-"))
    try:
        base = _best(lambda: compile_pack(str(MINIMAL), Diagnostics()), repeat)
        for label, files in CASES.items():
            folder = root / label.replace(" ", "-").replace(",", "")
            shutil.copytree(MINIMAL, folder)
            for name, text in files.items():
                (folder / name).write_text(text, encoding="utf-8")
            res = compile_pack(str(folder), Diagnostics())
            codes = sorted({d.code for d in res.diagnostics.errors})
            took = _best(lambda folder=folder: compile_pack(str(folder), Diagnostics()), max(1, repeat // 2))
            table.add(f"  {label}", f"{took * 1000:,.0f} ms", f"minimal pack: {base * 1000:.1f} ms", took / base,
                      "report", note=f"refused with {', '.join(codes) or 'nothing (NOT refused)'}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
