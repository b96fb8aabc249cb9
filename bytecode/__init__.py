"""The bytecode format: what the compiler writes and the runtime reads, and nothing else.

A compiled pack (`CompiledPack`) holds the pack's declarations, its cards with their compiled
programs (`Code`), and one table of source spans. The opcode table (`opcodes.OPS`) declares every
instruction once; the VM, the disassembler, the validator and the docs derive from it. This
package imports neither the compiler nor the runtime.
"""

from .compiled import CardDef, ClaimDef, Code, CompiledPack, ModifierDef, TriggerDef, validate_code
from .opcodes import BY_NAME, BYTECODE_VERSION, OPS, Op
from .spans import NO_SPAN, Span

__all__ = ["BYTECODE_VERSION", "BY_NAME", "NO_SPAN", "OPS", "CardDef", "ClaimDef", "Code", "CompiledPack",
           "ModifierDef", "Op", "Span", "TriggerDef", "validate_code"]
