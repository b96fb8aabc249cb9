"""Rule parameters given from outside the pack (--param, a scenario's params, a save or a log header), checked
against the pack's declarations before a game uses them: known names, the declared type, bounded values.

One check for every door a parameter comes in by, so that a game never meets a value of the wrong type or
of thousands of digits deep inside a program."""

from __future__ import annotations

import json
from typing import Any

from cardsmith.bytecode import CompiledPack

MAX_VALUE = 10**18  # the largest number a game keeps (counters, pieces, scores, parameters); see runtime/vm
MAX_ITEMS = 1_000  # the longest list a list parameter may be given


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def param_problem(default: Any, name: str, value: Any) -> str | None:
    """Why `value` cannot stand for the parameter `name` declared with `default` (None: it can)."""
    if _is_int(default):
        if not _is_int(value):
            return f"rule parameter '{name}' is a whole number (default {json.dumps(default)}), not {_shown(value)}"
        values = [value]
    else:
        if not isinstance(value, list) or not all(_is_int(v) for v in value):
            return (f"rule parameter '{name}' is a list of whole numbers (default {json.dumps(default)}), "
                    f"not {_shown(value)}")
        if len(value) > MAX_ITEMS:
            return f"rule parameter '{name}' has {len(value):,} items; a list parameter has at most {MAX_ITEMS:,}"
        values = value
    if any(not -MAX_VALUE <= v <= MAX_VALUE for v in values):
        return f"rule parameter '{name}' must stay within ±{MAX_VALUE:.0e} (a game keeps no larger number)"
    return None


def param_problems(pack: CompiledPack, params: dict | None) -> list[str]:
    """Every problem of `params` against the pack's parameters: unknown names, wrong types, values too large."""
    if not params:
        return []
    if not isinstance(params, dict):
        return [f"parameters must be a mapping of names to values, not {_shown(params)}"]
    unknown = [str(k) for k in params if k not in pack.params]
    if unknown:
        return [f"unknown rule parameter(s) {', '.join(unknown)}; parameters: {', '.join(pack.params) or 'none'}"]
    return [p for k, v in params.items() if (p := param_problem(pack.params[k], k, v)) is not None]


def _shown(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."
