"""The benchmark table: a figure, the baseline measured in the same run, their ratio and the goal."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass


@dataclass
class Row:
    benchmark: str
    figure: str
    baseline: str = ""
    ratio: float | None = None
    goal: str = ""  # e.g. "<= 3", ">= 1.8", "report"
    note: str = ""

    @property
    def verdict(self) -> str:
        if self.ratio is None or not self.goal or self.goal == "report":
            return ""
        op, value = self.goal.split()
        ok = self.ratio <= float(value) if op == "<=" else self.ratio >= float(value)
        return "met" if ok else "NOT met"


class Table:
    def __init__(self) -> None:
        self.rows: list[Row] = []

    def add(self, *args, **kw) -> Row:
        row = Row(*args, **kw)
        self.rows.append(row)
        return row

    def section(self, title: str) -> None:
        self.rows.append(Row(f"## {title}", ""))

    def render(self) -> str:
        head = ("benchmark", "figure", "baseline (same run)", "ratio", "goal", "")
        body: list[tuple | str | None] = []
        for r in self.rows:
            if r.benchmark.startswith("## "):
                body.append(None)
                body.append(r.benchmark[3:])  # a section title, printed across the columns
                continue
            ratio = "" if r.ratio is None else (f"{r.ratio:.2f}" if r.ratio == r.ratio else "n/a")
            body.append((r.benchmark, r.figure, r.baseline, ratio, r.goal, r.verdict))
        rows = [b for b in body if isinstance(b, tuple)]
        widths = [max(len(head[i]), *(len(b[i]) for b in rows)) if rows else len(head[i]) for i in range(len(head))]

        def line(cells):
            return "  ".join(str(c).ljust(w) if i != 3 else str(c).rjust(w) for i, (c, w) in
                             enumerate(zip(cells, widths, strict=True))).rstrip()

        out = [line(head), line(["-" * w for w in widths])]
        for b in body:
            out.append("" if b is None else b if isinstance(b, str) else line(b))
        notes = [(r.benchmark, r.note) for r in self.rows if r.note]
        if notes:
            out.append("")
            out.extend(f"* {name}: {note}" for name, note in notes)
        return "\n".join(out)

    def write_json(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump([{**asdict(r), "verdict": r.verdict} for r in self.rows], fh, indent=1)
