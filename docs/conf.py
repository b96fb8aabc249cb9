"""Sphinx configuration for the cardsmith documentation.

Build with warnings as errors:

    sphinx-build -W -b html docs docs/_build/html

The extension in _ext/ compiles every effect-language example against example-pack/,
runs the CLI commands the pages show, and generates the opcode, schema and error-code
references from the code, so a page that no longer matches the code fails the build.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

from cardsmith import __version__  # noqa: E402
from cardsmith.bytecode.opcodes import BYTECODE_VERSION  # noqa: E402
from cardsmith.compiler import cache, check, expand, packs, vocab, yamlsrc  # noqa: E402
from cardsmith.runtime import game, params, replay, save, vm  # noqa: E402
from cardsmith.runtime.vm import ops_payments, trial  # noqa: E402

project = "cardsmith"
author = "the cardsmith authors"
copyright = "the cardsmith authors"
release = __version__
version = ".".join(__version__.split(".")[:2])

extensions = ["sphinx.ext.autodoc", "sphinx_click", "cardsmith_examples", "cardsmith_schemas", "cardsmith_reference"]

# The pack every effect-language example is compiled against (relative to this folder).
cardsmith_example_pack = "example-pack"

exclude_patterns = ["_build", "example-pack", "first-pack", "expansion-pack", "Thumbs.db", ".DS_Store"]
templates_path: list[str] = []
root_doc = "index"
highlight_language = "none"
pygments_style = "sphinx"

html_theme = "alabaster"
html_theme_options = {
    "description": "card games as data",
    "fixed_sidebar": True,
    "page_width": "1100px",
    "sidebar_width": "230px",
}
html_static_path: list[str] = []
html_title = f"cardsmith {release}"

# Numbers the pages quote, taken from the code so they cannot drift.
_numbers = {
    "bytecode-version": BYTECODE_VERSION,
    "step-budget": f"{vm.STEP_BUDGET:,}",
    "work-budget": f"{vm.WORK_BUDGET:,}",
    "work-copy": vm.WORK_COPY,
    "max-trigger-depth": vm.MAX_TRIGGER_DEPTH,
    "max-frames": vm.MAX_FRAMES,
    "max-expansion-depth": expand.MAX_EXPANSION_DEPTH,
    "max-expanded-nesting": expand.MAX_EXPANDED_NESTING,
    "max-chain": packs.MAX_CHAIN,
    "max-file-bytes": f"{yamlsrc.MAX_FILE_BYTES:,}",
    "max-nodes": f"{yamlsrc.MAX_NODES:,}",
    "max-depth": yamlsrc.MAX_DEPTH,
    "max-decisions": f"{game.DEFAULT_MAX_DECISIONS:,}",
    # the limits of hostile input (docs/reliability.rst)
    "max-value": f"{vm.MAX_VALUE:,}",
    "max-options": f"{vm.MAX_OPTIONS:,}",
    "max-search": f"{vm.MAX_SEARCH:,}",
    "max-expanded-size": f"{expand.MAX_EXPANDED_SIZE:,}",
    "max-folder-depth": packs.MAX_FOLDER_DEPTH,
    "max-search-depth": packs.MAX_SEARCH_DEPTH,
    "max-save-bytes": f"{save.MAX_SAVE_BYTES:,}",
    "max-log-bytes": f"{replay.MAX_LOG_BYTES:,}",
    "max-entry-bytes": f"{cache.MAX_ENTRY_BYTES:,}",
    "max-save-decisions": f"{save.MAX_DECISIONS:,}",
    "max-param-items": f"{params.MAX_ITEMS:,}",
    "max-payment-states": f"{ops_payments.MAX_STATES:,}",
    "max-trial-runs": trial.MAX_BRANCHES,
    "max-order-parts": check.MAX_ORDER_PARTS,
}

def _words(names) -> str:
    """``a``, ``b`` and ``c``"""
    quoted = [f"``{n}``" for n in sorted(names)]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


_numbers["reserved-names"] = _words(vocab.RESERVED)
_numbers["card-attributes"] = _words(getattr(vocab, "CARD_ATTRIBUTES", ()) or ["(none)"])
rst_epilog = "\n".join(f".. |{k}| replace:: {v}" for k, v in _numbers.items())
