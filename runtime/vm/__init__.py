"""The generic VM, in parts: value types (`core`), the machine with its frame stack and decisions
(`machine`), the linker that prepares programs (`linker`), opcode handlers by family (`ops_flow`,
`ops_counters`, `ops_zones`, `ops_queries`, `ops_decisions`), the opcodes defined inline (`inline`) and
the fuser that compiles runs of instructions (`fuser`)."""

from .core import (
    MAX_FRAMES,
    MAX_OPTIONS,
    MAX_SEARCH,
    MAX_TRIGGER_DEPTH,
    MAX_VALUE,
    STEP_BUDGET,
    WORK_BUDGET,
    WORK_COPY,
    Decision,
    Frame,
    Linked,
    Query,
    RuntimeFault,
)
from .handlers import HANDLERS
from .linker import Linker, linker_for
from .machine import VM

__all__ = ["HANDLERS", "MAX_FRAMES", "MAX_OPTIONS", "MAX_SEARCH", "MAX_TRIGGER_DEPTH", "MAX_VALUE", "STEP_BUDGET", "VM",
           "WORK_BUDGET", "WORK_COPY", "Decision", "Frame", "Linked", "Linker", "Query", "RuntimeFault", "linker_for"]
