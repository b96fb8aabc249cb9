"""Macro expansion: game words defined in rules.yaml, replaced by their bodies.

A macro's signature is a name followed by words and $parameters ("compost $n from
$zone"). A call matches a signature of the same name and shape; its arguments are
substituted into the parsed body, which becomes a Group remembering the macro's
name, so diagnostics inside it can point back at the call.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from . import ast as A
from .diagnostics import Diagnostics, Span
from .parse import keywords, parse_expression, parse_filters, parse_program, parse_signature
from .unparse import text
from .vocab import Entry, Vocabulary

MAX_EXPANSION_DEPTH = 32
# Nesting of an expanded program (the built-in packs reach 33): the checker and the emitter
# recurse over it, so a chain of macros that each nest a little must stop here, not in Python.
MAX_EXPANDED_NESTING = 150
# Size of one expanded program, in AST nodes (the largest built-in program has under 4,000): macros that each
# call the next twice double it at every level, so 22 of them in a 1.5 kB rules.yaml would make millions.
MAX_EXPANDED_SIZE = 20_000
_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(node) -> tuple[str, ...]:
    """Names of a node's fields other than its span (cached per class: this runs for every node)."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(f.name for f in dataclasses.fields(node) if f.name != "span")
    return names


@dataclass(frozen=True)
class Macro:
    name: str
    shape: tuple[str | None, ...]  # a literal word, or None where a parameter goes
    params: tuple[str, ...]
    body: A.Program
    entry: Entry

    @property
    def signature(self) -> str:
        return self.entry.name

    @property
    def span(self) -> Span:
        return self.entry.key_span


def _locator(entry: Entry, key: bool, lines_of: dict | None = None):
    doc, path = entry.doc, entry.path
    if key:
        base = doc.key_span(path)
        # the lines of each rules file, split once (`lines_of`), not once per macro
        lines_of = {} if lines_of is None else lines_of
        if id(doc) not in lines_of:
            lines_of[id(doc)] = (doc, doc.text.splitlines(), doc.text.count("\n") + 1)
        _, lines, count = lines_of[id(doc)]
        line = lines[base.line - 1] if 0 < base.line <= count else ""
        quoted = 1 if line[base.col - 1: base.col] in ("'", '"') else 0
        col = base.col + quoted
        return lambda s, e: Span(base.file, base.line, col + s, base.line, col + e)
    return doc.text_locator(path)


BROKEN = "__broken__"  # table key holding the names of macros whose definition did not parse
ACTIVATION = "__activation__"  # table key of the activation order: the body of 'activate $timing abilities'
VALUES = "__values__"  # table key of the expression macros (rules.yaml 'expressions'): body an expression
FILTERS = "__filters__"  # table key of the filter macros (rules.yaml 'filters'): body a tuple of filters
RESERVED_KEYS = (BROKEN, ACTIVATION, VALUES, FILTERS)


def build_macros(voc: Vocabulary, diags: Diagnostics) -> dict[str, list[Macro]]:
    table: dict[str, list[Macro]] = {BROKEN: []}
    lines_of: dict[int, tuple] = {}
    for entry in voc.macros.values():
        first = entry.name.split(" ", 1)[0]
        if first in keywords():
            diags.error("E104", f"a macro cannot start with the built-in word '{first}': every call would be "
                        f"read as the built-in '{first}' statement", entry.key_span,
                        hint=f"start the macro with another word, e.g. '{first}-{entry.name.split(' ')[1]}'"
                        if " " in entry.name else "start the macro with another word")
            continue
        sig = parse_signature(entry.name, _locator(entry, key=True, lines_of=lines_of), diags)
        body = parse_program(str(entry.value), _locator(entry, key=False), diags)
        if sig is None or body is None:
            table[BROKEN].append(first)  # type: ignore[arg-type]  # its uses stay quiet: the error is reported
            continue
        shape = []
        params = []
        for arg in sig.args:
            word = str(arg.value)
            if word.startswith("$"):
                shape.append(None)
                params.append(word[1:])
            else:
                shape.append(word)
        table.setdefault(sig.name, []).append(Macro(sig.name, tuple(shape), tuple(params), body, entry))
    order = _activation_order(voc, diags)
    if order is not None:
        table[ACTIVATION] = [order]
    for key, section, parse in ((VALUES, voc.expressions, parse_expression), (FILTERS, voc.filters, parse_filters)):
        for entry in section.values():
            body = parse(str(entry.value), _locator(entry, key=False), diags)
            if body is None:
                table[BROKEN].append(entry.name)  # type: ignore[arg-type]
                continue
            table.setdefault(key, []).append(Macro(entry.name, (), (), body, entry))
    return table


def _activation_order(voc: Vocabulary, diags: Diagnostics) -> Macro | None:
    """The pack's activation order as a macro of one parameter, $timing: declared (`activation.order`),
    or else each card of the player's in-play zones, zone by zone as rules.yaml declares them."""
    act = voc.activation
    if act is not None and "order" in act.value:
        entry = Entry("activate $timing abilities", act.value["order"], act.doc, (*act.path, "order"))
        body = parse_program(str(entry.value), _locator(entry, key=False), diags)
        return Macro(ACTIVATION, (None,), ("timing",), body, entry) if body is not None else None
    zones = [n for n, e in voc.zones.items() if e.value.get("in-play") and e.value.get("owner", "player") == "player"]
    text_ = f"activate $timing ability of each card in {' or '.join(zones)}" if zones else "nothing"
    doc = act.doc if act is not None else next(iter(voc.zones.values())).doc if voc.zones else None
    if doc is None:
        return None
    entry = Entry("activate $timing abilities", text_, doc, act.path if act is not None else ())
    span = doc.span(entry.path)
    body = parse_program(text_, lambda s, e: span, diags)
    return Macro(ACTIVATION, (None,), ("timing",), body, entry) if body is not None else None


def _arg_word(arg: A.CallArg) -> str:
    return str(arg.value)


def _as_expr(arg: A.CallArg) -> A.Node:
    if arg.kind == "num":
        return A.Num(int(arg.value), span=arg.span)
    if arg.kind == "word":
        return A.Name(str(arg.value), span=arg.span)
    if arg.kind == "it":
        return A.It(span=arg.span)
    if arg.kind == "this":
        return A.This(span=arg.span)
    return arg.value  # an expression (or the value of "up to N" outside an amount)


def _replace(node, changes: dict):
    """`dataclasses.replace` for AST nodes, without running the frozen `__init__` again (several
    times faster; nodes have no `__post_init__`)."""
    try:
        fields = node.__dict__
    except AttributeError:  # a node class with slots
        return dataclasses.replace(node, **changes)
    new = object.__new__(type(node))
    new.__dict__.update(fields)
    new.__dict__.update(changes)
    return new


def _same_tuple(new: tuple, old: tuple) -> tuple:
    """`old` when `new` holds the same objects: an unchanged subtree keeps its identity (and its parent)."""
    if len(new) == len(old) and all(a is b for a, b in zip(new, old, strict=True)):
        return old
    return new


def _uses_macro(node, named: frozenset[str]) -> bool:
    """Whether a node is a use of an expression or filter macro (expanded like a call)."""
    return isinstance(node, A.Name | A.Has | A.HasNo) and getattr(node, "name", None) in named


def _macro_shapes(body, plain: dict[int, int], fixed: set[int], sizes: dict[int, int],
                  named: frozenset[str] = frozenset()) -> tuple[bool, bool, int, int]:
    """(mentions a $parameter, holds a call, height in AST levels, size in nodes) of a macro body node. Fills
    `fixed` with the ids of nodes that mention no parameter (substitution leaves them as they are) and `plain`
    with those that hold no call either, with their height, and `sizes` with their size (expansion leaves them
    as they are)."""
    if isinstance(body, str):
        return body.startswith("$"), False, 0, 0
    if isinstance(body, tuple):
        param = call = False
        height = size = 0
        for n in body:
            p, c, h, z = _macro_shapes(n, plain, fixed, sizes, named)
            param, call, height, size = param or p, call or c, max(height, h), size + z
        return param, call, height, size
    if not isinstance(body, A.Node):
        return False, False, 0, 0
    param, call, height, size = False, isinstance(body, A.Call) or _uses_macro(body, named), 0, 1
    for name in _child_fields(body):
        p, c, h, z = _macro_shapes(getattr(body, name), plain, fixed, sizes, named)
        param, call, height, size = param or p, call or c, max(height, h), size + z
    if not param:
        fixed.add(id(body))
        if not call:
            plain[id(body)] = height + 1
            sizes[id(body)] = size
    return param, call, height + 1, size


def _substitute(node, binding: dict[str, A.CallArg], fixed: set[int] = frozenset()):  # type: ignore[assignment]
    """A copy of `node` with $parameters replaced by the call's arguments (`fixed`: ids of nodes that
    mention no parameter, returned as they are)."""
    if isinstance(node, tuple):
        out = []
        for n in node:
            words = _words_for(n, binding)
            if words is None:
                out.append(_substitute(n, binding, fixed))
            elif isinstance(n, A.ZoneRef):  # 'card in $zones' with 'hand or discard': one zone each
                out += [_replace(n, {"name": w}) for w in words]
            else:  # a trait's values: 'with fruit $kinds'
                out += list(words)
        return _same_tuple(tuple(out), node)
    if id(node) in fixed:
        return node
    if isinstance(node, str):
        if node.startswith("$") and node[1:] in binding:
            arg = binding[node[1:]]
            return str(arg.value) if arg.kind in ("word", "num") else node
        return node
    if isinstance(node, A.Name) and node.name.startswith("$") and node.name[1:] in binding:
        return _as_expr(binding[node.name[1:]])
    if (isinstance(node, A.Amount) and isinstance(node.value, A.Name) and node.value.name.startswith("$")
            and binding.get(node.value.name[1:]) is not None and binding[node.value.name[1:]].kind == "upto"):
        # "up to N" passed as a macro argument keeps its meaning in the body's amount.
        arg = binding[node.value.name[1:]]
        return A.Amount("up_to", arg.value, span=arg.span)
    if isinstance(node, A.CallArg):
        if node.kind == "word" and str(node.value).startswith("$") and str(node.value)[1:] in binding:
            return binding[str(node.value)[1:]]
        if node.kind == "expr":
            return _replace(node, {"value": _substitute(node.value, binding, fixed)})
        return node
    if isinstance(node, A.Node):
        changes = {}
        for name in _child_fields(node):
            old = getattr(node, name)
            new = _substitute(old, binding, fixed)
            if new is not old:
                changes[name] = new
        return _replace(node, changes) if changes else node
    return node


def _words_for(node, binding: dict[str, A.CallArg]) -> tuple[str, ...] | None:
    """The names a 'words' argument ('hand or discard') gives where a list of names may stand: a zone of a query
    (an element of Query.zones) or a value of a trait (an element of TraitIs.values)."""
    name = node.name if isinstance(node, A.ZoneRef) else node if isinstance(node, str) else None
    if name is None or not name.startswith("$"):
        return None
    arg = binding.get(name[1:])
    return arg.value if arg is not None and arg.kind == "words" else None  # type: ignore[return-value]


def _as_words(arg: A.CallArg) -> A.CallArg:
    """'(hand or discard)' given as an expression: the names it joins, as a 'words' argument."""
    names: list[str] = []

    def collect(e) -> bool:
        if isinstance(e, A.BinOp) and e.op == "or":
            return collect(e.left) and collect(e.right)
        if isinstance(e, A.Name):
            names.append(e.name)
            return True
        return False

    if arg.kind == "expr" and isinstance(arg.value, A.BinOp) and arg.value.op == "or" and collect(arg.value):
        return A.CallArg("words", tuple(names), span=arg.span)
    return arg


def _single_uses(body, param: str) -> list[tuple[str, A.Node]]:
    """Where a macro body uses $param as one name (a move's zone, a counter, a flag, ...), which a list of names
    cannot fill: (what stands there, the node)."""
    key = "$" + param
    out: list[tuple[str, A.Node]] = []

    def walk(node, parent) -> None:
        if isinstance(node, tuple):
            for n in node:
                if isinstance(n, A.ZoneRef | str) and isinstance(parent, A.Query | A.TraitIs):
                    continue  # a list fits here
                walk(n, node)
            return
        if not isinstance(node, A.Node) or isinstance(node, A.CallArg):  # passed on to a call: its own uses count
            return
        for f in _child_fields(node):
            v = getattr(node, f)
            if isinstance(v, A.Name) and v.name == key:
                out.append(("value", node))
            elif v == key:
                out.append(("zone" if isinstance(node, A.ZoneRef) else f, node))
            elif isinstance(v, tuple) and isinstance(node, A.Query | A.TraitIs):
                for n in v:
                    if not isinstance(n, A.ZoneRef | str):
                        walk(n, node)
            else:
                walk(v, node)
    walk(body, None)
    return out


def _matches(m: Macro, call: A.Call) -> bool:
    if len(m.shape) != len(call.args):
        return False
    for want, arg in zip(m.shape, call.args, strict=True):
        if want is not None and not (arg.kind == "word" and arg.value == want):
            return False
    return True


class Expander:
    def __init__(self, table: dict[str, list[Macro]], diags: Diagnostics) -> None:
        self.table = table
        self.diags = diags
        self.used: set[str] = set()
        self._outer: A.Call | None = None  # the call in the card or rule text that started this expansion
        self._too_deep = False
        self.cut_short = False  # an expansion stopped at MAX_EXPANDED_NESTING: macros past it went unvisited
        # Macro bodies are substituted and walked at every call; these tables (ids of body nodes, which
        # the table keeps alive) let both skip the parts a call cannot change.
        self._fixed: set[int] = set()  # mention no $parameter
        self._plain: dict[int, int] = {}  # mention no parameter and hold no call: id -> height
        self._sizes: dict[int, int] = {}  # the same nodes: id -> size in nodes
        self.values: dict[str, Macro] = {m.name: m for m in table.get(VALUES, [])}  # type: ignore[union-attr]
        self.filters: dict[str, Macro] = {m.name: m for m in table.get(FILTERS, [])}  # type: ignore[union-attr]
        named = frozenset(self.values) | frozenset(self.filters)
        for m in self.macros():
            _macro_shapes(m.body.body, self._plain, self._fixed, self._sizes, named)
        for m in (*self.values.values(), *self.filters.values()):
            _macro_shapes(m.body, self._plain, self._fixed, self._sizes, named)
        # A call inside a macro body that mentions no parameter is the same object at every use of the
        # macro, and expands to the same Group: kept here by id (the call kept alive with it), with what
        # its expansion met (the macros it went through, how many levels deep, the deepest AST level
        # relative to the call), so a use in another place reuses it only where the limits hold alike.
        self._memo: dict[int, tuple] = {}
        self._sigs: set[str] = set()  # macros the expansions under way went through
        self._chain = 0  # macro levels below the expansion under way
        self._reach = 0  # deepest AST level an expansion under way visited
        self._size = 0  # nodes of the program being expanded so far (a shared subtree counted at each use)
        self._too_large = False

    @property
    def broken(self) -> set[str]:
        return set(self.table.get(BROKEN, []))  # type: ignore[arg-type]

    def macros(self) -> list[Macro]:
        return [m for name, ms in self.table.items() if name not in RESERVED_KEYS for m in ms]

    def program(self, prog: A.Program) -> A.Program:
        return A.Program(self.expand(prog.body), span=prog.span)

    def expand(self, node, stack: tuple[str, ...] = ()):
        """`node` with every macro call replaced by its body (`stack`: the macros it sits in)."""
        self._outer, self._too_deep, self._too_large = None, False, False
        self._sigs, self._chain, self._reach, self._size = set(), 0, 0, 0
        out = self._walk(node, stack, 0)
        if self._too_large:  # reported: what was expanded before the limit is not worth checking and emitting
            return () if isinstance(node, tuple) else A.Nothing(span=getattr(node, "span", None))
        return out

    def _grow(self, nodes: int, node, stack: tuple[str, ...]) -> bool:
        """Count `nodes` more nodes of the expanded program; False (with one E106 per program) past the size."""
        self._size += nodes
        if self._size <= MAX_EXPANDED_SIZE:
            return True
        if not self._too_large:
            self._too_large = self.cut_short = True
            self.diags.error("E106", f"macros expand into a program of over {MAX_EXPANDED_SIZE:,} parts"
                             + (f" ({' -> '.join(stack)})" if stack else ""), self._outer_span(node),
                             hint="a macro that calls another twice doubles the program at every level")
        return False

    def _walk(self, node, stack: tuple[str, ...], depth: int):
        if self._too_large:  # the whole program is dropped (see expand): stop at once
            return node
        if isinstance(node, tuple):
            return _same_tuple(tuple(self._walk(n, stack, depth) for n in node), node)
        if isinstance(node, A.Call):
            return self._expand(node, stack, depth)
        if isinstance(node, A.ActivateTiming) and ACTIVATION in self.table:
            return self._activation(node, stack, depth)
        if isinstance(node, A.Name) and node.name in self.values:
            return self._named(node, self.values[node.name], stack, depth)
        if isinstance(node, A.Has | A.HasNo) and node.name in self.filters:
            used = self._named(node, self.filters[node.name], stack, depth)
            return A.FilterNot(used, span=node.span) if isinstance(node, A.HasNo) else used
        if isinstance(node, A.Has | A.HasNo) and node.name in self.values:
            self.diags.error("E147", f"'{node.name}' is an expression macro: it stands where a value goes, not after "
                             "'with'", self._outer_span(node), hint="compare it in a condition, e.g. 'where "
                             f"{node.name} > 0'", notes=self._outer_notes(node))
            return node
        if isinstance(node, A.Node):
            height = self._plain.get(id(node))
            if height is not None and depth + height <= MAX_EXPANDED_NESTING:
                if depth + height - 1 > self._reach:
                    self._reach = depth + height - 1
                if not self._grow(self._sizes[id(node)], node, stack):
                    return A.Nothing(span=node.span)
                return node  # part of a macro body with no call and no parameter in it
            if not self._grow(1, node, stack):
                return A.Nothing(span=node.span)
            if depth > self._reach:
                self._reach = depth
            if depth >= MAX_EXPANDED_NESTING:
                if not self._too_deep:  # once per program: the rest is the same fault
                    self._too_deep = self.cut_short = True
                    chain = " -> ".join(stack)
                    self.diags.error("E106", f"macros expand into a program nested too deeply (over "
                                     f"{MAX_EXPANDED_NESTING} levels: {chain})", self._outer_span(node))
                return A.Nothing(span=node.span)
            changes = {}
            for name in _child_fields(node):
                old = getattr(node, name)
                if isinstance(old, tuple | A.Node):
                    new = self._walk(old, stack, depth + 1)
                    if new is not old:
                        changes[name] = new
            return _replace(node, changes) if changes else node
        return node

    def _named(self, node, macro: Macro, stack: tuple[str, ...], depth: int):
        """A use of an expression macro (a Name) or a filter macro (a 'with NAME' filter): its body, kept with its
        name (text and diagnostics read it as one thing)."""
        key = "=" + macro.name
        if key in stack or len(stack) >= MAX_EXPANSION_DEPTH:
            chain = " -> ".join([*(s.lstrip("=") for s in stack), macro.name])
            self.diags.error("E106", f"macro '{macro.name}' expands into itself ({chain})", self._outer_span(node),
                             notes=(("the macro is defined here", macro.span),))
            return node
        self.used.add(macro.signature)
        body = self._walk(macro.body, (*stack, key), depth + 1)
        if isinstance(body, tuple):
            return A.MacroFilter(macro.name, body, span=node.span)
        return A.MacroValue(macro.name, body, span=node.span)

    def _activation(self, node: A.ActivateTiming, stack: tuple[str, ...], depth: int) -> A.Activation:
        """`activate TIMING abilities`: the activation order with $timing filled in (macros in it expanded)."""
        order = self.table[ACTIVATION][0]
        if ACTIVATION in stack:  # an order that activates itself: 'activate $timing abilities' inside it
            self.diags.error("E106", "the activation order activates abilities of a timing itself ('activate "
                             "... abilities' inside it): use 'activate $timing ability of ...'", order.span)
            return A.Activation(node.timing, (), span=node.span)
        self.used.add(ACTIVATION)
        binding = {"timing": A.CallArg("word", node.timing, span=node.span)}
        body = _substitute(order.body.body, binding)
        body = self._walk(body, (*stack, ACTIVATION), depth + 1)
        return A.Activation(node.timing, body, span=node.span)

    def _outer_span(self, node) -> Span:
        return self._outer.span if self._outer is not None else node.span

    def _outer_notes(self, node) -> tuple[tuple[str, Span], ...]:
        # A macro used by many cards: the card (or rule) whose text started the expansion.
        if self._outer is None or self._outer.span == node.span:
            return ()
        return ((f"expanded from '{text(self._outer)}' here", self._outer.span),)

    def _expand(self, call: A.Call, stack: tuple[str, ...], depth: int):
        if not stack:
            self._outer = call
        candidates = self.table.get(call.name) if call.name not in RESERVED_KEYS else None
        if not candidates and (call.name in self.values or call.name in self.filters):
            what = "an expression" if call.name in self.values else "a filter"
            where = f"where a value goes (an amount, a condition: 'if {call.name} ...')" if call.name in self.values \
                else f"after 'with' ('card with {call.name}')"
            self.diags.error("E147", f"'{call.name}' is {what} macro, not an action: it stands {where}", call.span,
                             hint="statements are built-in words or macros under 'macros' in rules.yaml",
                             notes=self._outer_notes(call))
            return A.Nothing(span=call.span)
        if not candidates:
            return call  # the checker reports unknown actions with a suggestion
        macro = next((m for m in candidates if _matches(m, call)), None)
        if macro is None and call.name in self.broken:
            return call  # perhaps a call of the variant whose body did not parse: that error is the one to read
        if macro is None:
            shapes = "; ".join(f"'{m.signature}'" for m in candidates)
            self.diags.error("E104", f"'{call.name}' does not take these words here", call.span,
                             hint=f"it is defined as {shapes}")
            return A.Nothing(span=call.span)
        if macro.signature in stack or len(stack) >= MAX_EXPANSION_DEPTH:
            chain = " -> ".join([*stack, macro.signature])
            self.diags.error("E106", f"macro '{macro.signature}' expands into itself ({chain})", call.span,
                             notes=(("the macro is defined here", macro.span), *self._outer_notes(call)))
            return A.Nothing(span=call.span)
        self.used.add(macro.signature)
        fixed = id(call) in self._fixed
        if fixed and (hit := self._memo.get(id(call))) is not None:
            _, group, sigs, chain, reach, size = hit
            if sigs.isdisjoint(stack) and len(stack) + chain <= MAX_EXPANSION_DEPTH \
                    and depth + reach < MAX_EXPANDED_NESTING:
                if not self._grow(size, call, stack):
                    return A.Nothing(span=call.span)
                self.used |= sigs
                self._sigs |= sigs
                self._chain = max(self._chain, chain)
                self._reach = max(self._reach, depth + reach)
                return group
        outer = self._sigs, self._chain, self._reach
        self._sigs, self._chain, self._reach = {macro.signature}, 0, depth
        size_before = self._size
        errors = len(self.diags.items)
        binding = {}
        for want, arg in zip(macro.shape, call.args, strict=True):
            if want is None:
                binding[macro.params[len(binding)]] = _as_words(arg)
        for param, arg in binding.items():
            if arg.kind != "words":
                continue
            for what, _ in _single_uses(macro.body.body, param)[:1]:
                names = " or ".join(arg.value)  # type: ignore[arg-type]
                self.diags.error("E146", f"'{names}' is several names, but ${param} stands for one {what} in "
                                 f"'{macro.signature}'", call.span,
                                 hint="a list of names fits where several may stand: the zones of a query ('card in "
                                 f"${param}') or a trait's values ('with fruit ${param}')",
                                 notes=(("the macro is defined here", macro.span), *self._outer_notes(call)))
                self._sigs, self._chain, self._reach = outer
                return A.Nothing(span=call.span)
        body = _substitute(macro.body.body, binding, self._fixed)
        body = self._walk(body, (*stack, macro.signature), depth + 1)
        group = A.Group(body, macro=macro.signature, call=text(call), span=call.span)
        sigs, chain, reach = self._sigs, self._chain + 1, self._reach
        if fixed and len(self.diags.items) == errors and not self._too_deep and not self._too_large:
            self._memo[id(call)] = (call, group, frozenset(sigs), chain, reach - depth, self._size - size_before)
        self._sigs = outer[0] | sigs
        self._chain = max(outer[1], chain)
        self._reach = max(outer[2], reach)
        return group
