"""Sphinx directives that keep the cardsmith documentation true to the code.

``.. effect-example::``
    An effect-language program, compiled at build time against the documentation pack
    (``cardsmith_example_pack`` in conf.py). A program that does not compile is a Sphinx
    error, so ``sphinx-build -W`` fails. Options:

    ``:context: flow`` (default)
        a rules-level program, as in ``setup``, ``game`` or a scenario's ``do``;
    ``:context: scoring``
        a scoring step (``score`` is allowed);
    ``:context: value``
        an integer expression, as in a tiebreaker;
    ``:context: condition``
        a card's ``requires`` condition (a yes/no expression; ``this`` is the card);
    ``:timing: NAME``
        the ability of a card for that timing (``this`` is the card); ``:type:`` picks the
        card type (default: the first type the timing allows);
    ``:fails: CODE``
        the program must NOT compile, and must report error CODE; the diagnostic is shown;
    ``:bytecode:``
        show the compiled instructions under the program;
    ``:pack: FOLDER``
        compile against another documentation pack (a folder under docs/, e.g. ``drafting-pack``).

``.. cardsmith-opcodes::``
    The opcode reference, generated from ``bytecode/opcodes.py`` ``OPS``.

``.. cardsmith-command:: ARGS``
    Runs ``cardsmith ARGS`` at build time (in the docs folder, or ``:cwd:``) and shows the
    command and its real output. ``:exit-code:`` is the expected exit code (default 0);
    any other is a Sphinx error. ``:stdout-only:`` leaves out what went to stderr.

``.. cardsmith-error-code:: CODE``
    One diagnostic code: the messages the compiler gives for it (read from the source) and
    the explanation in the directive's content. At the end of reading, every code the
    compiler emits must be documented and every documented code must exist.

Also a Pygments lexer ``cardsmith`` for the effect language; its keywords come from the grammar.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import shlex
from pathlib import Path
from textwrap import indent

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from pygments.lexer import RegexLexer, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, Text, Whitespace
from sphinx.util import logging

logger = logging.getLogger(__name__)

# ---------------------------------------------------------------------------- locations


def _cardsmith_root() -> Path:
    """The folder holding compiler/, runtime/, grammar/ (the checkout or the installed package)."""
    import cardsmith.bytecode.opcodes as opcodes

    return Path(opcodes.__file__).resolve().parent.parent


# ---------------------------------------------------------------------------- the lexer


def _grammar_words() -> tuple[list[str], list[str]]:
    from cardsmith.compiler.parse import grammar_text

    text = grammar_text()
    funcs_line = next((ln for ln in text.splitlines() if ln.startswith("!fname")), "")
    funcs = sorted(set(re.findall(r'"([a-z]+)"', funcs_line)) | {"count", "sum"})
    body = "\n".join(ln.split("//")[0] for ln in text.splitlines() if not ln.startswith("!fname"))
    kws = sorted(set(re.findall(r'"([a-zA-Z]+)"', body)) - set(funcs))
    return kws, funcs


class EffectLexer(RegexLexer):
    """The cardsmith effect language: keywords from grammar/effect.lark."""

    name = "cardsmith"
    aliases = ["cardsmith", "effect"]
    filenames: list[str] = []

    _kws, _funcs = _grammar_words()
    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r"\$[a-z][a-z0-9]*(-[a-z0-9]+)*", Name.Variable),
            (words(_funcs, prefix=r"(?<![\w$-])", suffix=r"(?=\s*\()"), Name.Builtin),
            (words(_kws, prefix=r"(?<![\w$-])", suffix=r"(?![\w-])"), Keyword),
            (r"\d+", Number.Integer),
            (r"[a-z][a-z0-9]*(-[a-z0-9]+)*", Name),
            (r">=|<=|!=|=|>|<|\+|-|\*|/", Operator),
            (r"[:,;()|]", Punctuation),
            (r".", Text),
        ]
    }


# ---------------------------------------------------------------------------- compiling examples


class ExampleCompiler:
    """The documentation pack, compiled once per process; examples compile against it."""

    def __init__(self, pack_dir: Path) -> None:
        from cardsmith.compiler.pipeline import compile_pack

        self.pack_dir = pack_dir
        self.result = compile_pack(str(pack_dir))
        self.counter = 0

    @property
    def ok(self) -> bool:
        return self.result.ok

    def pack_errors(self) -> str:
        from cardsmith.compiler.diagnostics import render_text

        return render_text(self.result.diagnostics.sorted())

    def compile(self, program: str, context: str, timing: str | None, card_type: str | None):
        """Returns (diagnostics, listing, yaml_line_of_program_start, column_indent)."""
        from cardsmith.compiler.diagnostics import Diagnostics
        from cardsmith.compiler.yamlsrc import load_yaml_text

        comp = self.result.compiler
        voc = comp.voc
        self.counter += 1
        name = f"example {self.counter}"
        if timing is not None:
            if timing not in voc.timings:
                raise ValueError(f"the documentation pack has no timing '{timing}' "
                                 f"(timings: {', '.join(voc.timings)})")
            types = voc.timings[timing].value.get("types") or list(voc.card_types)
            ctype = card_type or types[0]
            head = f"cards:\n  - id: example\n    name: Example\n    type: {ctype}\n    abilities:\n      {timing}: |\n"
            text, first_line, pad = head + indent(program, " " * 8), 7, 8
        elif context == "condition":
            ctype = card_type or next(iter(voc.card_types))
            head = f"cards:\n  - id: example\n    name: Example\n    type: {ctype}\n    requires: |\n"
            text, first_line, pad = head + indent(program, " " * 6), 6, 6
        else:
            text, first_line, pad = "do: |\n" + indent(program, "  "), 2, 2
        bag = Diagnostics()
        doc = load_yaml_text(text + "\n", f"<{name}>", bag)
        if doc is None:
            return list(bag), [], first_line, pad
        before = len(comp.diags.items)
        listing: list[tuple[str, object]] = []
        try:
            if timing is not None or context == "condition":
                raw = doc.value["cards"][0]
                card = comp.card(doc, ("cards", 0), raw, {}, "docs")
                if card is not None:
                    listing.extend((label, code) for label, code in _card_codes(card))
            elif context == "value":
                code = comp.snippet_expression(doc, ("do",), name)
                if code is not None:
                    listing.append(("value", code))
            else:
                code = comp.snippet(doc, ("do",), name, scoring=context == "scoring")
                if code is not None:
                    listing.append((context, code))
        finally:
            new = comp.diags.items[before:]
            del comp.diags.items[before:]
        return new, listing, first_line, pad


def _card_codes(card):
    for t, code in card.abilities.items():
        yield t, code
    for t, code in card.checks.items():
        yield f"{t} (can the cost be paid?)", code
    for t, code in card.conditions.items():
        yield t, code
    for i, trig in enumerate(card.triggers):
        obj = trig.name or (json.dumps(trig.filters) if trig.filters is not None else "")
        yield f"trigger {i + 1}: when {trig.subject} {trig.verb} {obj}".rstrip(), trig.code
    for m in card.modifiers:
        yield f"modifier: {m.stat} {m.amount:+d} for cards matching {json.dumps(m.query['filters'])}", None


def _is_condition_timing(comp: ExampleCompiler, timing: str | None) -> bool:
    if timing is None:
        return False
    entry = comp.result.compiler.voc.timings.get(timing)
    return entry is not None and entry.value.get("kind") == "condition"


def _listing(entries) -> str:
    out = []
    for label, code in entries:
        if code is None:
            out.append(f"; {label}")
            continue
        out.append(f"; {label}")
        for i, ins in enumerate(code.ops):
            operands = " ".join(json.dumps(a, ensure_ascii=False, separators=(",", ":")) for a in ins[1:])
            out.append(f"{i:4d}  {ins[0]:<16}{operands}".rstrip())
    return "\n".join(out)


_COMPILERS: dict[Path, ExampleCompiler] = {}


def _compiler(env, folder: str | None = None) -> ExampleCompiler:
    """Per process (the environment is pickled; a compiler is not)."""
    pack = (Path(env.srcdir) / (folder or env.config.cardsmith_example_pack)).resolve()
    comp = _COMPILERS.get(pack)
    if comp is None:
        comp = _COMPILERS[pack] = ExampleCompiler(pack)
    return comp


def _pack_files(env, folder: str | None = None) -> list[Path]:
    pack = Path(env.srcdir) / (folder or env.config.cardsmith_example_pack)
    return sorted(pack.glob("*.yaml"))


def grammar_forms() -> set[str]:
    """Every statement and expression form of the grammar: the tree-node names a parse can
    produce (aliases and rule names that are not inlined), and 'fn:NAME' per built-in function."""
    from cardsmith.compiler.parse import parser

    p = parser()
    forms: set[str] = set()
    for r in p.rules:
        name = str(getattr(r.origin.name, "value", r.origin.name))
        if name == "fname":
            forms.update(f"fn:{p.get_terminal(s.name).pattern.value}" for s in r.expansion)
            continue
        if r.alias:
            forms.add(str(r.alias))
            continue
        kept = [s for s in r.expansion if not getattr(s, "filter_out", False)]
        if name.startswith("_") or (r.options.expand1 and len(kept) <= 1):
            continue
        forms.add(name)
    return forms - {"program", "signature", "expression", "filter_chain"}  # entry points, not forms


def used_forms(program: str, start: str) -> set[str]:
    from lark import Tree

    from cardsmith.compiler.parse import parser

    try:
        tree = parser().parse(program, start=start)
    except Exception:
        return set()
    out = set()
    for t in tree.iter_subtrees():
        out.add(str(t.data))
        if str(t.data) == "func" and t.children and isinstance(t.children[0], Tree):
            out.add(f"fn:{t.children[0].children[0]}")
    return out


class EffectExample(Directive):
    has_content = True
    option_spec = {
        "context": lambda a: directives.choice(a, ("flow", "scoring", "value", "condition")),
        "timing": directives.unchanged_required,
        "type": directives.unchanged_required,
        "fails": directives.unchanged_required,
        "bytecode": directives.flag,
        "caption": directives.unchanged,
        "pack": directives.unchanged_required,
    }

    def run(self):
        env = self.state.document.settings.env
        folder = self.options.get("pack")
        for f in _pack_files(env, folder):
            env.note_dependency(str(f))
        program = "\n".join(self.content).strip("\n")
        if not program.strip():
            raise self.error("effect-example: the program is empty")
        comp = _compiler(env, folder)
        if not comp.ok:
            raise self.error("the documentation pack does not compile:\n" + comp.pack_errors())
        try:
            diags, listing, first_line, pad = comp.compile(
                program, self.options.get("context", "flow"), self.options.get("timing"), self.options.get("type"))
        except ValueError as e:
            raise self.error(f"effect-example: {e}") from None
        errors = [d for d in diags if str(d.severity) == "error"]
        shown = [self._where(d, first_line, pad) for d in errors]
        expect = self.options.get("fails")
        if expect is None and errors:
            raise self.error("effect example does not compile:\n" + "\n".join(shown) + "\n\n" + program)
        if expect is not None:
            if not errors:
                raise self.error(f"effect example should fail with {expect} but compiles:\n\n{program}")
            if expect not in {d.code for d in errors}:
                raise self.error(f"effect example should fail with {expect}, got:\n" + "\n".join(shown))
        if expect is None:
            context = self.options.get("context", "flow")
            start = "expression" if context in ("value", "condition") or _is_condition_timing(
                comp, self.options.get("timing")) else "program"
            covered = env.__dict__.setdefault("cardsmith_forms", {})
            covered.setdefault(env.docname, set()).update(used_forms(program, start))
        out: list[nodes.Node] = []
        block = nodes.literal_block(program, program)
        block["language"] = "cardsmith"
        caption = self.options.get("caption")
        if caption:
            container = nodes.container("", literal_block=True, classes=["literal-block-wrapper"])
            container += nodes.caption(caption, caption)
            container += block
            out.append(container)
        else:
            out.append(block)
        if expect is not None:
            text = "\n".join(shown)
            diag_block = nodes.literal_block(text, text, classes=["cardsmith-diagnostic"])
            diag_block["language"] = "none"
            out.append(diag_block)
        elif "bytecode" in self.options:
            text = _listing(listing)
            code_block = nodes.literal_block(text, text, classes=["cardsmith-bytecode"])
            code_block["language"] = "none"
            out.append(code_block)
        return out

    def _where(self, d, first_line: int, pad: int) -> str:
        line = d.span.line - first_line + 1
        col = d.span.col - pad
        where = f"line {line}, column {col}: " if line >= 1 and col >= 1 else ""
        hint = f"\n    = help: {d.hint}" if d.hint else ""
        return f"{where}error[{d.code}]: {d.message}{hint}"


# ---------------------------------------------------------------------------- opcodes


_TICKS = re.compile(r"`([^`]+)`|'([^'\s][^']*?)'")


def _text_nodes(text: str, quotes: bool = False) -> list[nodes.Node]:
    """Plain text with `backticked` (and, if asked, 'quoted') spans as literals; no reST parsing."""
    out: list[nodes.Node] = []
    pos = 0
    pattern = _TICKS if quotes else re.compile(r"`([^`]+)`")
    for m in pattern.finditer(text):
        if m.start() > pos:
            out.append(nodes.Text(text[pos:m.start()]))
        inner = next(g for g in m.groups() if g is not None)
        out.append(nodes.literal(inner, inner))
        pos = m.end()
    if pos < len(text):
        out.append(nodes.Text(text[pos:]))
    return out


def _para(*parts) -> nodes.paragraph:
    p = nodes.paragraph()
    for part in parts:
        if isinstance(part, str):
            p += nodes.Text(part)
        elif isinstance(part, list):
            p.extend(part)
        else:
            p += part
    return p


def _field(name: str, *body) -> nodes.field:
    f = nodes.field()
    f += nodes.field_name(name, name)
    fb = nodes.field_body()
    fb += _para(*body)
    f += fb
    return f


class Opcodes(Directive):
    has_content = False

    def run(self):
        from cardsmith.bytecode import opcodes

        env = self.state.document.settings.env
        env.note_dependency(opcodes.__file__)
        out: list[nodes.Node] = []
        # the summary table
        table = nodes.table(classes=["cardsmith-opcodes"])
        group = nodes.tgroup(cols=4)
        table += group
        for w in (16, 22, 24, 10):
            group += nodes.colspec(colwidth=w)
        head = nodes.thead()
        group += head
        row = nodes.row()
        for h in ("Opcode", "Operands", "Stack", "Decides"):
            row += nodes.entry("", nodes.paragraph(h, h))
        head += row
        body = nodes.tbody()
        group += body
        for op in opcodes.OPS:
            row = nodes.row()
            ref = nodes.reference("", "", internal=True, refid=f"opcode-{op.name.lower().replace('_', '-')}")
            ref += nodes.literal(op.name, op.name)
            row += nodes.entry("", _para(ref))
            ops_text = ", ".join(op.operands) or "—"
            row += nodes.entry("", _para(ops_text))
            row += nodes.entry("", _para(nodes.literal(op.stack, op.stack)))
            row += nodes.entry("", _para("yes" if op.decides else ""))
            body += row
        out.append(table)
        # the entries
        dl = nodes.definition_list(classes=["cardsmith-opcode-list"])
        for op in opcodes.OPS:
            item = nodes.definition_list_item(ids=[f"opcode-{op.name.lower().replace('_', '-')}"])
            term = nodes.term()
            term += nodes.literal(op.name, op.name)
            for operand in op.operands:
                term += nodes.Text(" ")
                term += nodes.emphasis(operand, operand)
            item += term
            d = nodes.definition()
            d += _para(_text_nodes(op.doc, quotes=True))
            fl = nodes.field_list()
            fl += _field("Stack", nodes.literal(op.stack, op.stack))
            fl += _field("Decision", "may suspend for a decision" if op.decides else "never suspends")
            if op.example:
                fl += _field("Example", nodes.literal(op.example, op.example))
            d += fl
            item += d
            dl += item
        out.append(dl)
        return out


# ---------------------------------------------------------------------------- commands


_EDIT = re.compile(r'^(?P<file>[^:]+):\s*(?P<old>"(?:[^"\\]|\\.)*")\s*->\s*(?P<new>"(?:[^"\\]|\\.)*")\s*$')


def _commit_all(folder: Path) -> None:
    """Make `folder` a git repository with one commit holding everything in it."""
    import subprocess

    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=docs", "-c", "user.email=docs@example.org",
                                                 "commit", "-q", "-m", "the version before the edits"]):
        subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)


class CommandDirective(Directive):
    """Run `cardsmith ARGS` and show the real output.

    With ``:copy: SRC DEST`` the command runs in a fresh temporary folder holding a copy of
    the docs folder SRC named DEST, changed by the edits in the directive's content, one per
    line: ``DEST/FILE: "old text" -> "new text"`` (JSON strings; each old text must occur
    exactly once). That is how the pages show real diagnostics of broken packs.

    With ``:git:`` the temporary folder is first made a git repository whose one commit holds
    the copy before the edits, so ``DEST@HEAD`` names the pack as copied (``cardsmith diff``).
    """

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = {
        "cwd": directives.unchanged_required,
        "copy": directives.unchanged_required,
        "exit-code": directives.nonnegative_int,
        "stdout-only": directives.flag,
        "git": directives.flag,
    }

    def run(self):
        import shutil
        import tempfile

        from click.testing import CliRunner

        from cardsmith.cli import main

        env = self.state.document.settings.env
        for f in _pack_files(env):
            env.note_dependency(str(f))
        args = self.arguments[0]
        want = self.options.get("exit-code", 0)
        with tempfile.TemporaryDirectory(prefix="cardsmith-docs-") as tmp:
            if "copy" in self.options:
                try:
                    src, dest = self.options["copy"].split()
                except ValueError:
                    raise self.error(":copy: takes SRC DEST") from None
                src_dir = Path(env.srcdir) / src
                if not src_dir.is_dir():
                    raise self.error(f":copy: no folder {src_dir}")
                for f in src_dir.rglob("*"):
                    env.note_dependency(str(f))
                shutil.copytree(src_dir, Path(tmp) / dest, ignore=shutil.ignore_patterns("_build", "__pycache__"))
                if "git" in self.options:
                    _commit_all(Path(tmp))
                for line in (ln for ln in self.content if ln.strip()):
                    m = _EDIT.match(line.strip())
                    if not m:
                        raise self.error(f'an edit reads FILE: "old" -> "new", not {line!r}')
                    target = Path(tmp) / m["file"]
                    old_text, new_text = json.loads(m["old"]), json.loads(m["new"])
                    text = target.read_text(encoding="utf-8") if target.is_file() else ""
                    if text.count(old_text) != 1:
                        raise self.error(f"edit of {m['file']}: {old_text!r} occurs {text.count(old_text)} times")
                    target.write_text(text.replace(old_text, new_text), encoding="utf-8")
                cwd = Path(tmp)
            elif self.content:
                raise self.error("edits need :copy:")
            else:
                cwd = Path(env.srcdir) / self.options.get("cwd", ".")
            runner = CliRunner()
            old = os.getcwd()
            os.chdir(cwd)
            try:
                result = runner.invoke(main, shlex.split(args), prog_name="cardsmith", catch_exceptions=True)
            finally:
                os.chdir(old)
        output = result.stdout if "stdout-only" in self.options else result.output
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise self.error(f"cardsmith {args}: {type(result.exception).__name__}: {result.exception}")
        if result.exit_code != want:
            raise self.error(f"cardsmith {args} exited with {result.exit_code}, the page says {want}:\n{output}")
        text = f"$ cardsmith {args}\n{output.rstrip()}"
        if want:
            text += f"\n$ echo $?\n{result.exit_code}"
        block = nodes.literal_block(text, text)
        block["language"] = "console"
        return [block]


# ---------------------------------------------------------------------------- bytecode layout


def _json_keys(comp: ExampleCompiler, what: str) -> list[str]:
    data = comp.result.pack.to_json()
    if what == "pack":
        return list(data)
    if what == "card":  # every key some card has (a key such as payments is left out when empty)
        return list(dict.fromkeys(k for c in data["cards"] for k in c))
    if what == "code":
        return list(data["game"])
    if what == "trigger":
        card = next(c for c in data["cards"] if c["triggers"])
        return list(card["triggers"][0])
    if what == "scoring-step":
        return list(data["scoring"][0])
    raise ValueError(what)


class JsonKeys(Directive):
    """A definition list of the keys of a compiled-pack JSON object; the build fails when the
    keys it documents are not exactly the keys the compiler writes."""

    has_content = True
    required_arguments = 1  # pack | card | code | trigger | scoring-step

    def run(self):
        env = self.state.document.settings.env
        from cardsmith import bytecode

        env.note_dependency(bytecode.__file__)
        comp = _compiler(env)
        if not comp.ok:
            raise self.error("the documentation pack does not compile:\n" + comp.pack_errors())
        try:
            actual = _json_keys(comp, self.arguments[0])
        except (ValueError, StopIteration):
            raise self.error(f"cannot list the keys of '{self.arguments[0]}'") from None
        holder = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, holder)
        documented = [lit.astext() for t in holder.findall(nodes.term) for lit in t.findall(nodes.literal)]
        missing = [k for k in actual if k not in documented]
        extra = [k for k in documented if k not in actual]
        if missing or extra:
            raise self.error(f"the {self.arguments[0]} keys documented here differ from the compiler's: "
                             f"undocumented {missing}, not written by the compiler {extra}")
        return holder.children


# ---------------------------------------------------------------------------- diagnostic codes


_CODE = re.compile(r"^[ERW]\d{3}$")


def _message_template(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                parts.append(_placeholder(v.value))
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _message_template(node.left) + _message_template(node.right)
    return "…"


def _placeholder(v: ast.AST) -> str:
    if isinstance(v, ast.Name):
        return f"<{v.id}>"
    if isinstance(v, ast.Attribute):
        return f"<{v.attr}>"
    if isinstance(v, ast.Subscript) and isinstance(v.slice, ast.Constant):
        return f"<{v.slice.value}>"
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "join":
        return "<…>"
    return "<…>"


@functools.cache
def source_codes() -> dict[str, list[tuple[str, str]]]:
    """code -> [(message template, 'file:line')] for every diagnostic the code base emits."""
    root = _cardsmith_root()
    files = [p for folder in ("compiler", "present", "cardsmith") for p in sorted((root / folder).rglob("*.py"))]
    found: dict[str, list[tuple[str, str]]] = {}
    for path in files:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError):
            continue
        for node in ast.walk(tree):
            # diags.error("E101", message, ...) and checker.err(ctx, "E102", message, ...)
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("error", "warning", "err", "warn")):
                continue
            for i, arg in enumerate(node.args[:2]):
                if (isinstance(arg, ast.Constant) and isinstance(arg.value, str) and _CODE.match(arg.value)
                        and len(node.args) > i + 1):
                    msg = _message_template(node.args[i + 1])
                    rel = f"{path.relative_to(root).as_posix()}:{node.lineno}"
                    found.setdefault(arg.value, []).append((msg, rel))
                    break
    for vm in sorted((root / "runtime" / "vm").glob("*.py")):
        for m in re.finditer(r"error\[(R\d{3})\]", vm.read_text(encoding="utf-8")):
            found.setdefault(m.group(1), []).append(("<message> (in <program>)", vm.relative_to(root).as_posix()))
    return found


class ErrorCode(Directive):
    required_arguments = 1
    has_content = True

    def run(self):
        code = self.arguments[0]
        env = self.state.document.settings.env
        codes = source_codes()
        if not hasattr(env, "cardsmith_documented_codes"):
            env.cardsmith_documented_codes = {}
        env.cardsmith_documented_codes.setdefault(env.docname, set()).add(code)
        if code not in codes:
            raise self.error(f"{code} is documented but nothing in the code base emits it")
        dl = nodes.definition_list(classes=["cardsmith-error-code"])
        item = nodes.definition_list_item(ids=[f"error-{code.lower()}"])
        term = nodes.term()
        term += nodes.literal(code, code)
        item += term
        d = nodes.definition()
        seen = []
        for msg, _where in codes[code]:
            if msg not in seen:
                seen.append(msg)
        bl = nodes.bullet_list(classes=["cardsmith-messages"])
        for msg in seen:
            li = nodes.list_item()
            li += _para(nodes.literal(msg, msg))
            bl += li
        d += bl
        self.state.nested_parse(self.content, self.content_offset, d)
        item += d
        dl += item
        return [dl]


_ENV_TABLES = ("cardsmith_documented_codes", "cardsmith_forms")


def _purge_codes(app, env, docname):
    for attr in _ENV_TABLES:
        table = getattr(env, attr, None)
        if table:
            table.pop(docname, None)


def _merge_codes(app, env, docnames, other):
    for attr in _ENV_TABLES:
        theirs = getattr(other, attr, {})
        mine = env.__dict__.setdefault(attr, {})
        mine.update({d: v for d, v in theirs.items() if d in docnames})


def _check_forms(app, env):
    covered = getattr(env, "cardsmith_forms", None)
    if not covered:
        return  # a partial build without the examples
    used = set().union(*covered.values())
    missing = sorted(grammar_forms() - used)
    if missing:
        logger.warning("grammar forms without a compiled '.. effect-example::': " + ", ".join(missing))


def _check_codes(app, env):
    documented = set().union(*getattr(env, "cardsmith_documented_codes", {}).values()) \
        if getattr(env, "cardsmith_documented_codes", None) else set()
    if not documented:
        return  # a partial build without the diagnostics page
    for code, places in sorted(source_codes().items()):
        if code not in documented:
            logger.warning(f"diagnostic {code} is emitted ({places[0][1]}) but not documented "
                           "with '.. cardsmith-error-code::'")


# ---------------------------------------------------------------------------- setup


def setup(app):
    app.add_config_value("cardsmith_example_pack", "example-pack", "env")
    app.add_lexer("cardsmith", EffectLexer)
    app.add_directive("effect-example", EffectExample)
    app.add_directive("cardsmith-opcodes", Opcodes)
    app.add_directive("cardsmith-command", CommandDirective)
    app.add_directive("cardsmith-error-code", ErrorCode)
    app.add_directive("cardsmith-json-keys", JsonKeys)
    app.connect("env-purge-doc", _purge_codes)
    app.connect("env-merge-info", _merge_codes)
    app.connect("env-check-consistency", _check_codes)
    app.connect("env-check-consistency", _check_forms)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
