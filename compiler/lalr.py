"""Lark's LALR tables run by one tight loop that builds the AST while it reduces.

Lark parses in two passes: its parser builds a tree (wrapping every reduction in a chain of
helpers that filter children, inline `_rules` and propagate positions), then a Transformer
walks the tree again. For the many short texts of a pack that is most of a compile. This
driver uses the same grammar, the same parse tables and the same contextual lexers (so it
accepts exactly the same texts, token for token), but calls the transformer's method at
each reduction with the children already transformed and the positions Lark would have
given the node. Only valid input takes this path: on anything else (a syntax error, a limit,
a transformer that raises) it answers None and the caller parses again with Lark, which
gives the diagnostic.
"""

from __future__ import annotations

from typing import Any

from lark import Lark, Token, Tree
from lark.lexer import UnlessCallback
from lark.parsers.lalr_analysis import Shift
from lark.visitors import Discard, _vargs_meta

_new_token = Token._future_new


class Meta:
    """The positions a transformer method receives, as Lark's tree meta (line and column on demand)."""

    __slots__ = ("_text", "empty", "end_pos", "start_pos")

    def __init__(self, start: int | None, end: int | None, text: str) -> None:
        self.empty = start is None
        self.start_pos = start
        self.end_pos = end
        self._text = text

    def _line_col(self, pos: int) -> tuple[int, int]:
        return self._text.count("\n", 0, pos) + 1, pos - self._text.rfind("\n", 0, pos)

    @property
    def line(self) -> int:
        return self._line_col(self.start_pos)[0]

    @property
    def column(self) -> int:
        return self._line_col(self.start_pos)[1]

    @property
    def end_line(self) -> int:
        return self._line_col(self.end_pos)[0]

    @property
    def end_column(self) -> int:
        return self._line_col(self.end_pos)[1]


class Unsupported(Exception):
    """The grammar or transformer uses a Lark feature this driver does not reproduce."""


# What a reduction makes: a transformer call with meta, one without, a Tree (no method), a list spliced
# into the parent (an inlined `_rule`), or nothing new (_PASS: a `?rule` of one child keeps the child).
_META, _PLAIN, _TREE, _SPLICE, _PASS = range(5)


class Driver:
    """Parses with `lark`'s tables, calling methods of `transformer_cls` (a lark Transformer) at each reduction."""

    def __init__(self, lark: Lark, transformer_cls: type) -> None:
        opts = lark.options
        if (opts.parser != "lalr" or opts.lexer != "contextual" or opts.postlex is not None or opts.lexer_callbacks
                or opts.maybe_placeholders or opts.keep_all_tokens or opts.propagate_positions is not True
                or opts.transformer is not None or opts.tree_class not in (None, Tree)):
            raise Unsupported("parser options")
        front = lark.parser
        table = front.parser.parser.parse_table
        self.start_states = table.start_states
        self.end_states = table.end_states
        terminals = {t.name for t in lark.terminals}
        if any(callable(getattr(transformer_cls, name, None)) for name in terminals):
            raise Unsupported("transformer methods for tokens")
        self.lexers = self._lexers(front.lexer)
        # state -> symbol -> (True, next state) for a shift or a goto, (False, reducer) for a reduction
        reducers: dict[Any, tuple] = {}
        self.states: dict[int, dict[str, tuple]] = {}
        for state, actions in table.states.items():
            row = self.states[state] = {}
            for sym, (action, arg) in actions.items():
                if action is Shift:
                    row[sym] = (True, arg)
                else:
                    if arg not in reducers:
                        reducers[arg] = self._reducer(arg, transformer_cls)
                    row[sym] = (False, reducers[arg])

    @staticmethod
    def _lexers(contextual) -> dict[int, tuple]:
        """Per parser state: the compiled scanners, the ignored and the newline terminals, keyword maps."""
        out: dict[int, tuple] = {}
        made: dict[int, tuple] = {}
        for state, lexer in contextual.lexers.items():
            if id(lexer) not in made:
                scanner = lexer.scanner  # builds the regexes and lexer.callback
                keywords = {}
                for name, cb in lexer.callback.items():
                    if not isinstance(cb, UnlessCallback) or name in lexer.ignore_types:
                        raise Unsupported("lexer callbacks")
                    keywords[name] = (cb.scanner, {})
                made[id(lexer)] = (tuple(scanner._mres), lexer.ignore_types, lexer.newline_types, keywords)
            out[state] = made[id(lexer)]
        return out

    @staticmethod
    def _reducer(rule, transformer_cls: type) -> tuple:
        """(size, kept children as (index, splice), kind, function, rule name, goto symbol, `?rule`)."""
        name = rule.alias or rule.options.template_source or rule.origin.name
        origin = rule.origin.name
        size = len(rule.expansion)
        keep = tuple((i, not sym.is_term and sym.name.startswith("_")) for i, sym in enumerate(rule.expansion)
                     if not (sym.is_term and sym.filter_out))
        single = rule.options.expand1 and not rule.alias
        if origin.startswith("_"):
            if single:
                raise Unsupported("an inlined rule that is also expanded")
            return size, keep, _SPLICE, None, name, origin, False
        if single and size == 1 and keep == ((0, False),):
            return size, keep, _PASS, None, name, origin, True
        f = getattr(transformer_cls, name, None)
        if f is None:
            kind, func = _TREE, None
        else:
            wrapper = getattr(f, "visit_wrapper", None)
            if wrapper is _vargs_meta:
                kind, func = _META, f.base_func
            elif wrapper is None and callable(f):
                kind, func = _PLAIN, f
            else:
                raise Unsupported(f"v_args other than meta=True on '{name}'")
        return size, keep, kind, func, name, origin, single

    def parse(self, text: str, start: str, transformer: Any, max_height: int, max_digits: int) -> Any:
        """The transformed result, or None where Lark should parse instead (an error, a limit)."""
        states = self.states
        lexers = self.lexers
        end_state = self.end_states[start]
        sstack = [self.start_states[start]]
        vstack: list[tuple] = []  # (value, start, end, height); a spliced `_rule` holds a list
        pos, n = 0, len(text)
        line, line_start = 1, 0
        tok_type = None
        while True:
            # ---- the next token, lexed in the current state (as Lark's contextual lexer does)
            mres, ignore, newline, keywords = lexers[sstack[-1]]
            while pos < n:
                for mre in mres:
                    m = mre.match(text, pos)
                    if m:
                        break
                else:
                    return None
                tok_type = m.lastgroup
                value = m.group(0)
                if tok_type in ignore:
                    if tok_type in newline and "\n" in value:
                        line += value.count("\n")
                        line_start = pos + value.rfind("\n") + 1
                    pos = m.end()
                    continue
                break
            else:
                tok_type = "$END"
            if tok_type == "$END":
                token = None
            else:
                kw = keywords.get(tok_type)
                if kw is not None:
                    scanner, memo = kw
                    if value in memo:
                        tok_type = memo[value] or tok_type
                    else:
                        new = memo[value] = scanner.fullmatch(value)
                        tok_type = new or tok_type
                if tok_type == "NUMBER" and len(value) > max_digits:
                    return None
                end = m.end()
                col = pos - line_start + 1
                if tok_type in newline:
                    return None  # a token spanning lines: let Lark count them
                token = _new_token(tok_type, value, pos, line, col, line, col + (end - pos), end)
            # ---- reduce while the table says so, then shift
            while True:
                act = states[sstack[-1]].get(tok_type)
                if act is None:
                    return None
                shift, arg = act
                if shift:
                    if token is None:
                        return None
                    sstack.append(arg)
                    vstack.append((token, pos, end, 0))
                    pos = end
                    break
                size, keep, kind, func, name, origin, single = arg
                if kind == _PASS:  # the child stays on the stack as it is, under the rule's state
                    sstack[-1] = states[sstack[-2]][origin][1]
                    if token is None and sstack[-1] == end_state:
                        return vstack[-1][0]
                    continue
                if size:
                    items = vstack[-size:]
                    del vstack[-size:]
                    del sstack[-size:]
                else:
                    items = []
                first = last = None
                for it in items:
                    if it[1] is not None:
                        first = it[1]
                        break
                for it in reversed(items):
                    if it[2] is not None:
                        last = it[2]
                        break
                children: list = []
                height = 0
                for i, splice in keep:
                    it = items[i]
                    if splice:
                        children.extend(it[0])
                    else:
                        children.append(it[0])
                    if it[3] > height:
                        height = it[3]
                if kind == _SPLICE:
                    value = children
                elif single and len(children) == 1:
                    value = children[0]
                else:
                    height += 1
                    if height > max_height:
                        return None
                    try:
                        if kind == _META:
                            value = func(transformer, Meta(first, last, text), children)
                        elif kind == _PLAIN:
                            value = func(transformer, children)
                        else:
                            value = Tree(name, children, Meta(first, last, text))
                    except Exception:  # Lark reports it (as a VisitError), on the slow path
                        return None
                    if value is Discard:
                        return None
                sstack.append(states[sstack[-1]][origin][1])
                vstack.append((value, first, last, height))
                if token is None and sstack[-1] == end_state:
                    return value
