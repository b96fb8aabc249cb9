"""Coverage-guided fuzzing of the cardsmith loader, schemas, parser and compiler with atheris.

Not run in CI (tests/test_fuzz.py runs `one_input` on a few inputs so the harness keeps working).
The first byte of an input picks the target, the rest is the text:

    0  a whole card file, compiled against the VM test pack
    1  an effect-language program: parse_program, then a card ability of the VM test pack
    2  rules.yaml of the minimal pack (vocabulary, macros, flow programs)
    3  a card file compiled against Earth (real vocabulary and macros)
    4-9  the command line: validate, compile, test, simulate, replay, resume, each on a case that
       fuzz/hostile.py makes from the rest of the input (mutated packs, file names and kinds,
       tags, numbers at every bound, scenario files, saves, logs, output formats)

Every input must end in success or in error diagnostics; any other exception is a finding, and
atheris stops with the input that caused it (saved as crash-<hash>). Run it with:

    pip install atheris
    python fuzz/atheris_compile.py -atheris_runs=1000000 fuzz/corpus/
    python fuzz/atheris_compile.py crash-<hash>          # re-run one finding

(seed the corpus with the real files:
 mkdir -p fuzz/corpus && for f in cards/*/*.yaml; do cp "$f" "fuzz/corpus/$(echo "$f" | tr / _)"; done)
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VMTEST = ROOT / "tests" / "fixtures" / "packs" / "vmtest"
MINIMAL = ROOT / "tests" / "fixtures" / "valid" / "minimal"


@cache
def _chain(ref: str):
    from cardsmith.compiler.diagnostics import Diagnostics
    from cardsmith.compiler.packs import builtin_packs, load_chain

    folder = builtin_packs().get(ref) or Path(ref)
    chain = load_chain(folder, Diagnostics())
    if chain is None:  # pragma: no cover - the fixtures are valid
        raise RuntimeError(f"the base pack {ref} does not load")
    return tuple(chain)


def _compile(ref: str, text: str, kind: str) -> None:
    from cardsmith.compiler.diagnostics import Diagnostics, render_json, render_text
    from cardsmith.compiler.pipeline import _Compiler
    from cardsmith.compiler.schema import validate
    from cardsmith.compiler.yamlsrc import load_yaml_text

    diags = Diagnostics()
    chain = list(_chain(ref))
    top = chain[-1]
    doc = load_yaml_text(text, str(top.folder / f"fuzzed-{kind}.yaml"), diags)
    ok = False
    if doc is not None and validate(doc, kind, diags):
        parents = [dataclasses.replace(s, card_docs=[]) for s in chain[:-1]]
        if kind == "cards":
            top = dataclasses.replace(top, card_docs=[doc])
        else:
            top = dataclasses.replace(top, rules_doc=doc, card_docs=top.card_docs[:1])
        ok = _Compiler([*parents, top], diags).run().ok
    if not ok and not diags.has_errors:
        raise AssertionError("the compiler failed without an error diagnostic")
    render_text(diags.items)
    render_json(diags.items)


def _command(target: str, data: bytes) -> None:
    """One command-line case made from `data` (fuzz/hostile.py), run in this process; raises on a finding."""
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import hostile

    where = Path(tempfile.mkdtemp(prefix="cardsmith-atheris-"))
    try:
        case = hostile.make_case(int.from_bytes(data[:8].ljust(8, b"\0"), "little"), where / "case", target)
        outcome = hostile.run_case(case)
    except OSError:  # the case's files could not be made here: not a finding
        return
    finally:
        hostile.clear(where)
    if outcome.problem is not None:
        raise AssertionError(f"{outcome.problem}: cardsmith {' '.join(case.args)}\n{outcome.output[-2000:]}")


COMMANDS = ("validate", "compile", "test", "simulate", "replay", "resume")


def one_input(data: bytes) -> None:
    """One fuzz input; raises only on a finding."""
    if not data:
        return
    if data[0] % 10 >= 4:
        _command(COMMANDS[data[0] % 10 - 4], data[1:])
        return
    target, text = data[0] % 10, data[1:].decode("utf-8", errors="replace")
    if target == 0:
        _compile(str(VMTEST), text, "cards")
    elif target == 1:
        from cardsmith.compiler.diagnostics import Diagnostics
        from cardsmith.compiler.parse import parse_program, plain_locate

        diags = Diagnostics()
        if parse_program(text, plain_locate("fuzz"), diags) is None and not diags.has_errors:
            raise AssertionError("parse_program failed without an error diagnostic")
        import json

        card = {"cards": [{"id": "fuzzed", "name": "Fuzzed", "type": "unit", "abilities": {"act": text}}]}
        _compile(str(VMTEST), json.dumps(card), "cards")
    elif target == 2:
        _compile(str(MINIMAL), text, "rules")
    else:
        _compile("earth", text, "cards")


def main() -> None:  # pragma: no cover - needs atheris
    import atheris

    with atheris.instrument_imports():  # coverage feedback from the compiler's modules
        for name in ("yamlsrc", "schema", "packs", "parse", "expand", "check", "emit", "pipeline"):
            importlib.import_module(f"cardsmith.compiler.{name}")
    _chain(str(VMTEST)), _chain(str(MINIMAL)), _chain("earth")
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
