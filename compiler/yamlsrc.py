"""Read YAML keeping file, line and column for every node.

PyYAML composes a node tree (with the C parser where available); we turn it into
plain Python values and a side table of spans keyed by the value's path, so later
stages (schema, DSL parser, checker) can point back at the exact place in the file.
"""

from __future__ import annotations

import bisect
import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cardsmith.bytecode.inputs import InputError, read_input

from .diagnostics import Diagnostics, Span

try:  # the C parser is several times faster; fall back silently where libyaml is missing
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on the platform's PyYAML build
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

MAX_FILE_BYTES = 2_000_000  # a card file larger than this is almost certainly not hand-written
MAX_NODES = 200_000  # bounds alias expansion ("billion laughs") and giant documents
MAX_DEPTH = 64

Path_ = tuple[str | int, ...]

_STR_TAG = "tag:yaml.org,2002:str"
_scalar_constructor = yaml.constructor.SafeConstructor()


@dataclass
class YamlDoc:
    """A loaded YAML document: plain values plus where each came from."""

    file: str
    text: str
    value: Any
    spans: dict[Path_, Span] = field(default_factory=dict)  # path -> span of the value
    key_spans: dict[Path_, Span] = field(default_factory=dict)  # path -> span of its mapping key
    _raw: dict[Path_, tuple[int, int]] = field(default_factory=dict)  # path -> source char range
    _line_starts: list[int] = field(default_factory=list)
    _maps: dict[Path_, list[int]] = field(default_factory=dict)  # path -> value index -> source index

    def span(self, path: Path_) -> Span:
        """The span of the value at `path`, or of the nearest enclosing value."""
        p = tuple(path)
        while p:
            if p in self.spans:
                return self.spans[p]
            p = p[:-1]
        return self.spans.get((), Span(self.file, 1, 1))

    def key_span(self, path: Path_) -> Span:
        return self.key_spans.get(tuple(path)) or self.span(path)

    def source(self, path: Path_) -> str:
        """The text the value at `path` was read from ('' when there is no such value)."""
        sp = self.spans.get(tuple(path))
        if sp is None or sp.line <= 0 or not self._line_starts:
            return ""

        def index(line: int, col: int) -> int:
            return (self._line_starts[line - 1] if line <= len(self._line_starts) else len(self.text)) + col - 1

        return self.text[index(sp.line, sp.col):index(sp.end_line or sp.line, sp.end_col or sp.col)]

    def _pos(self, index: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, index) - 1
        return line + 1, index - self._line_starts[line] + 1

    def text_span(self, path: Path_, start: int, end: int | None = None) -> Span:
        """Span of characters [start, end) of the string value at `path`.

        The string may be a block scalar, folded or quoted: we align the value's
        characters with the raw source slice, so columns are exact in the common
        cases (plain, quoted without escapes, literal and folded blocks).
        """
        p = tuple(path)
        rng = self._raw.get(p)
        value = self._get(p)
        if rng is None or not isinstance(value, str):
            return self.span(p)
        src_start, src_end = rng
        m = self._maps.get(p)
        if m is None:
            m = self._maps[p] = _alignment(value, self.text[src_start:src_end])
        if not m:
            return self.span(p)
        s = m[min(max(start, 0), len(m) - 1)]
        line, col = self._pos(src_start + s)
        if end is None or end <= start:
            return Span(self.file, line, col)
        e = m[min(max(end - 1, start), len(m) - 1)] + 1
        eline, ecol = self._pos(src_start + e)
        return Span(self.file, line, col, eline, ecol)

    def value_offset(self, path: Path_, line: int, col: int) -> int | None:
        """The index in the string value at `path` of the character at `line`:`col` (1-based) of the file, the
        inverse of `text_span`; None when that place is not inside the value's text."""
        p = tuple(path)
        rng = self._raw.get(p)
        value = self._get(p)
        if rng is None or not isinstance(value, str) or not 0 < line <= len(self._line_starts):
            return None
        index = self._line_starts[line - 1] + col - 1
        if not rng[0] <= index <= rng[1]:
            return None
        m = self._maps.get(p)
        if m is None:
            m = self._maps[p] = _alignment(value, self.text[rng[0]:rng[1]])
        return bisect.bisect_left(m, index - rng[0])

    def text_locator(self, path: Path_) -> Callable[[int, int | None], Span]:
        """`text_span` of one path as a function of (start, end), with the lookups done once: the
        effect parser calls it for every node of the program."""
        p = tuple(path)
        rng = self._raw.get(p)
        value = self._get(p)
        m = None
        if rng is not None and isinstance(value, str):
            m = self._maps.get(p)
            if m is None:
                m = self._maps[p] = _alignment(value, self.text[rng[0]:rng[1]])
        if not m:
            whole = self.span(p)
            return lambda start, end=None: whole
        file, starts, last, base = self.file, self._line_starts, len(m) - 1, rng[0]
        find = bisect.bisect_right

        def locate(start: int, end: int | None = None) -> Span:
            i = base + m[min(max(start, 0), last)]
            line = find(starts, i) - 1
            if end is None or end <= start:
                return Span(file, line + 1, i - starts[line] + 1)
            j = base + m[min(max(end - 1, start), last)] + 1
            eline = find(starts, j) - 1
            return Span(file, line + 1, i - starts[line] + 1, eline + 1, j - starts[eline] + 1)

        return locate

    def _get(self, path: Path_) -> Any:
        v = self.value
        for k in path:
            try:
                v = v[k]
            except (KeyError, IndexError, TypeError):
                return None
        return v


def _alignment(value: str, raw: str) -> list[int]:
    """For each character of `value`, its index in the raw source slice.

    Walks both strings together, skipping the whitespace that folding and indentation add or
    remove and the quote or block indicators, so it works for every scalar style."""
    out: list[int] = []
    vi = ri = last = 0
    nv, nr = len(value), len(raw)
    if raw[:1] in ("|", ">"):  # a block scalar: its header line (indicators, a comment) holds no text
        nl = raw.find("\n")
        ri = last = nl + 1 if nl >= 0 else nr
    while vi < nv:
        vc = value[vi]
        if ri < nr and vc == raw[ri]:
            last = ri
            out.append(ri)
            vi += 1
            ri += 1
        elif vc.isspace():
            out.append(last)
            vi += 1
        elif ri < nr:
            ri += 1
        else:
            out.append(last)
            vi += 1
    return out


class _Builder:
    def __init__(self, doc: YamlDoc, diags: Diagnostics) -> None:
        self.doc = doc
        self.diags = diags
        self.count = 0
        self.failed = False

    def span_of(self, node: yaml.Node) -> Span:
        m, e = node.start_mark, node.end_mark
        return Span(self.doc.file, m.line + 1, m.column + 1, e.line + 1, e.column + 1)

    def _index(self, mark: yaml.Mark) -> int:
        starts = self.doc._line_starts
        if mark.line >= len(starts):
            return len(self.doc.text)
        return starts[mark.line] + mark.column

    def build(self, node: yaml.Node, path: Path_, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            if not self.failed:
                self.diags.error("E005", f"document too large or too many alias expansions (over {MAX_NODES} "
                                 "nodes)", self.span_of(node), hint="card files do not need YAML aliases")
                self.failed = True
            raise _Abort
        if depth > MAX_DEPTH:
            self.diags.error("E005", f"nesting deeper than {MAX_DEPTH} levels", self.span_of(node))
            self.failed = True
            raise _Abort
        self.doc.spans[path] = self.span_of(node)
        if isinstance(node, yaml.ScalarNode):
            self.doc._raw[path] = (self._index(node.start_mark), self._index(node.end_mark))
            try:
                value = _scalar_constructor.construct_object(node, deep=True)
            except Exception as e:  # an explicit tag the text does not fit (!!bool yes-please, !!int "", !!timestamp x)
                reason = str(e).splitlines()[0] if isinstance(e, ValueError | yaml.YAMLError | OverflowError) else \
                    f"{node.value[:40]!r} cannot be read as {_tag_word(node.tag)}"
                self.diags.error("E001", f"bad scalar value: {reason}", self.span_of(node))
                return node.value
            if not isinstance(value, _PLAIN):  # !!binary: bytes no pack field takes
                self.diags.error("E001", f"bad scalar value: the tag {_tag_word(node.tag)} is not supported",
                                 self.span_of(node), hint="write the value without a tag")
                return node.value
            return value
        if isinstance(node, yaml.SequenceNode):
            return [self.build(child, (*path, i), depth + 1) for i, child in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for knode, vnode in node.value:
                if knode.tag == "tag:yaml.org,2002:merge":
                    self.diags.error("E004", "merge keys ('<<') are not supported", self.span_of(knode),
                                     hint="write the fields out; cardsmith packs use `extends` for reuse")
                    continue
                if not isinstance(knode, yaml.ScalarNode) or knode.tag != _STR_TAG:
                    shown = knode.value if isinstance(knode, yaml.ScalarNode) else "a collection"
                    self.diags.error("E004", f"mapping keys must be strings, not {shown!r}",
                                     self.span_of(knode), hint="quote the key")
                    continue
                key = knode.value
                if key in out:
                    first = self.doc.key_spans.get((*path, key))
                    self.diags.error("E003", f"duplicate key '{key}'", self.span_of(knode),
                                     notes=(("first defined here", first),) if first else ())
                    continue
                self.doc.key_spans[(*path, key)] = self.span_of(knode)
                out[key] = self.build(vnode, (*path, key), depth + 1)
            return out
        raise AssertionError(f"unexpected node {node!r}")  # pragma: no cover


class _Abort(Exception):
    pass


_PLAIN = (str, int, float, bool, type(None), datetime.date)  # what a scalar of a pack may be


def _tag_word(tag: str) -> str:
    return "!!" + tag.rsplit(":", 1)[-1] if tag.startswith("tag:yaml.org,2002:") else tag


_NEWLINE = re.compile("\n")
_resolver = yaml.resolver.Resolver()


def _mark_span(file: str, mark: yaml.Mark | None) -> Span:
    return Span(file, mark.line + 1, mark.column + 1) if mark is not None else Span(file, 1, 1)


def _compose(text: str, file: str, diags: Diagnostics) -> yaml.Node | None:
    """The document's node graph, like `yaml.compose`, built from the parser's events without recursion.

    The limits are enforced while reading, before anything large is built: nesting deeper than
    MAX_DEPTH stops at the first node too deep (libyaml's composer recurses in C and would crash the
    interpreter on a hundred thousand nested brackets), and the size of the document with every alias
    expanded is counted from the sizes of the anchored nodes, so an alias bomb stops at MAX_NODES
    without being expanded. An alias of a collection that contains it is refused.
    """
    max_nodes, max_depth = MAX_NODES, MAX_DEPTH
    anchors: dict[str, tuple[yaml.Node, int | None]] = {}  # anchor -> node, expanded size (None while open)
    stack: list[list] = []  # [node, expanded size so far, anchor]
    root: yaml.Node | None = None
    documents = 0
    resolve = _resolver.resolve

    def add(node: yaml.Node, size: int, mark: yaml.Mark) -> None:
        nonlocal root
        if not stack:
            root = node
            return
        frame = stack[-1]
        parent = frame[0]
        if isinstance(parent, yaml.SequenceNode):
            parent.value.append(node)
        elif frame[3] is None:
            frame[3] = node  # a key waits for its value
        else:
            parent.value.append((frame[3], node))
            frame[3] = None
        frame[1] += size
        if frame[1] > max_nodes:
            diags.error("E005", f"document too large or too many alias expansions (over {max_nodes:,} nodes)",
                        _mark_span(file, mark), hint="card files do not need YAML aliases")
            raise _Abort

    def anchor_at(anchor: str | None, node: yaml.Node, mark: yaml.Mark) -> None:
        if anchor is None:
            return
        if anchor in anchors:
            raise yaml.composer.ComposerError(f"found duplicate anchor {anchor!r}; first occurrence",
                                              anchors[anchor][0].start_mark, "second occurrence", mark)
        anchors[anchor] = (node, None)

    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.ScalarEvent):
            tag = event.tag
            if tag is None or tag == "!":
                tag = resolve(yaml.ScalarNode, event.value, event.implicit)
            node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
            is_key = bool(stack) and stack[-1][3] is None and isinstance(stack[-1][0], yaml.MappingNode)
            if len(stack) > max_depth and not is_key:
                diags.error("E005", f"nesting deeper than {max_depth} levels", _mark_span(file, event.start_mark))
                raise _Abort
            if event.anchor is not None:
                anchor_at(event.anchor, node, event.start_mark)
                anchors[event.anchor] = (node, 1)
            add(node, 1, event.start_mark)
        elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            if len(stack) >= max_depth + 1:
                diags.error("E005", f"nesting deeper than {max_depth} levels", _mark_span(file, event.start_mark))
                raise _Abort
            seq = isinstance(event, yaml.SequenceStartEvent)
            kind = yaml.SequenceNode if seq else yaml.MappingNode
            tag = event.tag
            if tag is None or tag == "!":
                tag = resolve(kind, None, event.implicit)
            node = kind(tag, [], event.start_mark, None, flow_style=event.flow_style)
            anchor_at(event.anchor, node, event.start_mark)
            stack.append([node, 1, event.anchor, None])
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            node, size, anchor, _ = stack.pop()
            node.end_mark = event.end_mark
            if anchor is not None:
                anchors[anchor] = (node, size)
            add(node, size, event.start_mark)
        elif isinstance(event, yaml.AliasEvent):
            if event.anchor not in anchors:
                raise yaml.composer.ComposerError(None, None, f"found undefined alias {event.anchor!r}",
                                                  event.start_mark)
            node, size = anchors[event.anchor]
            if size is None:
                diags.error("E005", f"alias *{event.anchor} refers to a collection that contains it",
                            _mark_span(file, event.start_mark), hint="card files do not need YAML aliases")
                raise _Abort
            add(node, size, event.start_mark)
        elif isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise yaml.composer.ComposerError("expected a single document in the stream",
                                                  root.start_mark if root is not None else None,
                                                  "but found another document", event.start_mark)
            anchors.clear()
    return root


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _NEWLINE.finditer(text))]


def decode_source(data: bytes, file: str, diags: Diagnostics) -> str | None:
    """UTF-8 (with optional BOM) or a diagnostic at the first bad byte (its column counted in characters)."""
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    try:
        return data[bom:].decode("utf-8")
    except UnicodeDecodeError as e:
        bad = e.start + bom
        line = data.count(b"\n", 0, bad) + 1
        line_start = max(data.rfind(b"\n", 0, bad) + 1, bom)  # the byte order mark is not a character
        # everything before the bad byte decoded: count characters, not bytes
        col = len(data[line_start:bad].decode("utf-8")) + 1
        diags.error("E002", f"file is not valid UTF-8 (byte 0x{data[bad]:02x})", Span(file, line, col),
                    hint="save the file as UTF-8")
        return None


_SCALAR, _MAP_START, _SEQ_START = yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent
_COLLECTION_END = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _fast_load(text: str, doc: YamlDoc) -> bool:
    """Values and spans straight from the parser's events, for the common document: one document, no
    anchors, aliases or explicit tags, string keys once each, scalars that construct, well inside the
    limits. Anything else answers False (nothing of `doc` changed) and the careful path (`_compose`,
    `_Builder`) reads the file again and gives the exact diagnostic. Both give the same values and spans."""
    file, starts, end = doc.file, doc._line_starts, len(text)
    spans: dict[Path_, Span] = {}
    key_spans: dict[Path_, Span] = {}
    raw: dict[Path_, tuple[int, int]] = {}
    resolve = _resolver.resolve
    construct = _scalar_constructor.construct_object
    stack: list[list] = []  # [container, path, start mark, pending key (None: expecting a key)]
    root: Any = None
    documents = values = 0
    limit = MAX_NODES // 10  # a bigger document takes the careful path, which keeps less in memory

    def index(mark) -> int:
        return end if mark.line >= len(starts) else starts[mark.line] + mark.column

    try:
        for ev in yaml.parse(text, Loader=_Loader):
            kind = type(ev)
            if kind is _SCALAR:
                if ev.anchor is not None or ev.tag not in (None, "!"):
                    return False
                tag = resolve(yaml.ScalarNode, ev.value, ev.implicit)
                top = stack[-1] if stack else None
                if top is not None and type(top[0]) is dict and top[3] is None:  # a mapping key
                    key = ev.value
                    if tag != _STR_TAG or key in top[0]:
                        return False
                    top[3] = key
                    sm, em = ev.start_mark, ev.end_mark
                    key_spans[(*top[1], key)] = Span(file, sm.line + 1, sm.column + 1, em.line + 1, em.column + 1)
                    continue
                if tag == _STR_TAG:
                    value = ev.value
                else:
                    value = construct(yaml.ScalarNode(tag, ev.value, ev.start_mark, ev.end_mark, style=ev.style),
                                      deep=True)
                sm, em = ev.start_mark, ev.end_mark
                path = _child_path(top)
                spans[path] = Span(file, sm.line + 1, sm.column + 1, em.line + 1, em.column + 1)
                raw[path] = (index(sm), index(em))
                values += 1
                if top is None:
                    root = value
                else:
                    _attach(top, value)
            elif kind is _MAP_START or kind is _SEQ_START:
                if ev.anchor is not None or ev.tag not in (None, "!") or len(stack) >= MAX_DEPTH - 1:
                    return False
                top = stack[-1] if stack else None
                if top is not None and type(top[0]) is dict and top[3] is None:
                    return False  # a collection as a mapping key
                stack.append([{} if kind is _MAP_START else [], _child_path(top), ev.start_mark, None])
                values += 1
            elif kind in _COLLECTION_END:
                container, path, sm, _ = stack.pop()
                em = ev.end_mark
                spans[path] = Span(file, sm.line + 1, sm.column + 1, em.line + 1, em.column + 1)
                if stack:
                    _attach(stack[-1], container)
                else:
                    root = container
            elif kind is yaml.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    return False
            elif kind is yaml.AliasEvent:
                return False
            if values > limit:
                return False
    except (yaml.YAMLError, ValueError, OverflowError, TypeError, RecursionError):
        return False
    finally:
        _scalar_constructor.constructed_objects.clear()
        _scalar_constructor.recursive_objects.clear()
    if not spans:  # an empty document
        spans[()] = Span(file, 1, 1)
    doc.value, doc.spans, doc.key_spans, doc._raw = root, spans, key_spans, raw
    return True


def _child_path(top: list | None) -> Path_:
    if top is None:
        return ()
    container = top[0]
    return (*top[1], top[3] if type(container) is dict else len(container))


def _attach(top: list, value: Any) -> None:
    container = top[0]
    if type(container) is dict:
        container[top[3]] = value
        top[3] = None
    else:
        container.append(value)


def load_yaml_text(text: str, file: str, diags: Diagnostics) -> YamlDoc | None:
    doc = YamlDoc(file=file, text=text, value=None, _line_starts=_line_starts(text))
    if _fast_load(text, doc):
        return doc
    try:
        node = _compose(text, file, diags)
    except _Abort:
        return None
    except yaml.MarkedYAMLError as e:
        if e.problem and "maximum nesting depth" in e.problem:  # libyaml's own limit, met while reading ahead
            mark = e.problem_mark
            span = Span(file, mark.line + 1, mark.column + 1) if mark else Span(file, 1, 1)
            diags.error("E005", f"nesting deeper than {MAX_DEPTH} levels", span)
            return None
        mark = e.problem_mark or e.context_mark
        span = Span(file, mark.line + 1, mark.column + 1) if mark else Span(file, 1, 1)
        problem = e.problem or e.context or "invalid YAML"
        ctx = f" ({e.context})" if e.context and e.problem else ""
        diags.error("E001", f"YAML syntax error: {problem}{ctx}", span)
        return None
    except yaml.reader.ReaderError as e:
        # a character YAML does not allow (a control character): the first one in the text is the culprit
        i = text.find(chr(e.character)) if isinstance(e.character, int) else -1
        span = Span(file, *doc._pos(i)) if i >= 0 else Span(file, 1, 1)
        shown = f"#x{e.character:04x}" if isinstance(e.character, int) else repr(e.character)
        diags.error("E001", f"YAML error: character {shown} is not allowed in YAML", span,
                    hint="remove it, or write it as an escape in a double-quoted text")
        return None
    except yaml.YAMLError as e:
        diags.error("E001", f"YAML error: {e}", Span(file, 1, 1))
        return None
    except RecursionError:
        diags.error("E005", "nesting too deep to read", Span(file, 1, 1))
        return None
    if node is None:
        doc.value = None
        doc.spans[()] = Span(file, 1, 1)
        return doc
    builder = _Builder(doc, diags)
    try:
        doc.value = builder.build(node, (), 0)
    except _Abort:
        return None
    except RecursionError:
        diags.error("E005", "nesting too deep to read", Span(file, 1, 1))
        return None
    finally:
        # SafeConstructor caches every node it has constructed: drop them, or each load leaks its document.
        _scalar_constructor.constructed_objects.clear()
        _scalar_constructor.recursive_objects.clear()
    return doc


def load_yaml_file(path: Path | str, diags: Diagnostics, display: str | None = None,
                   follow: bool = False) -> YamlDoc | None:
    """Load one YAML file; on any problem record diagnostics and return None.

    Only a regular file of at most MAX_FILE_BYTES is read (bytecode/inputs.py); a symbolic link only with
    `follow` (a file a person named, never one found inside a pack)."""
    file = display or str(path)
    try:
        data = read_input(path, MAX_FILE_BYTES, follow=follow)
    except InputError as e:
        if e.size is not None:
            diags.error("E005", f"file is {e.size:,} bytes; the limit for a pack file is {MAX_FILE_BYTES:,}",
                        Span(file, 1, 1), hint="split the cards over several files")
        else:
            diags.error("E006", f"cannot read this file: {e.message}", Span(file, 1, 1))
        return None
    return load_yaml_bytes(data, file, diags)


def load_yaml_bytes(data: bytes, file: str, diags: Diagnostics) -> YamlDoc | None:
    """Load the contents of one file (read by `load_yaml_file`, or an editor's unsaved buffer)."""
    if len(data) > MAX_FILE_BYTES:
        diags.error("E005", f"file is {len(data):,} bytes; the limit for a pack file is {MAX_FILE_BYTES:,}",
                    Span(file, 1, 1), hint="split the cards over several files")
        return None
    text = decode_source(data, file, diags)
    if text is None:
        return None
    return load_yaml_text(text, file, diags)
