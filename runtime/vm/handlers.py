"""The dispatch table: every opcode of the bytecode has exactly one definition, either a handler in one
of the `ops_*` families or an inline definition (`inline.INLINE`), never both."""

from __future__ import annotations

from collections.abc import Callable

from cardsmith.bytecode import OPS

from . import ops_counters, ops_decisions, ops_flow, ops_payments, ops_players, ops_queries, ops_trials, ops_zones
from .inline import INLINE

HANDLERS: dict[str, Callable] = {
    name[3:]: fn
    for module in (ops_flow, ops_counters, ops_zones, ops_queries, ops_decisions, ops_payments, ops_trials, ops_players)
    for name, fn in vars(module).items() if name.startswith("op_")
}


def _check_table() -> None:
    missing = [op.name for op in OPS if op.name not in HANDLERS and op.name not in INLINE]
    twice = sorted(set(HANDLERS) & set(INLINE))
    if missing or twice:  # pragma: no cover - a developer error caught at import
        raise ImportError(f"opcodes without a definition: {missing}; defined twice: {twice}")


_check_table()
