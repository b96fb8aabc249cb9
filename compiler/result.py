"""What a compile returns (`compile_pack`, and the compile cache's hit, which needs none of the stages)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cardsmith.bytecode import CompiledPack

from .diagnostics import Diagnostics

if TYPE_CHECKING:
    from .packs import PackSource
    from .pipeline import _Compiler


@dataclass
class CompileResult:
    pack: CompiledPack | None
    diagnostics: Diagnostics
    sources: list[PackSource] = field(default_factory=list)
    cards_compiled: int = 0
    compiler: _Compiler | None = None  # kept so tools can compile more programs against the same vocabulary

    @property
    def asts(self) -> dict:
        """The checked, macro-expanded AST of every compiled program, by code name (for describe)."""
        return self.compiler.asts if self.compiler is not None else {}

    @property
    def ok(self) -> bool:
        return self.pack is not None and not self.diagnostics.has_errors
