"""The language server: LSP handlers over the workspace's document cache. Each handler converts positions at
the edge (client units to code points and back) and leaves the work to the modules beside it."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from cardsmith import __version__
from cardsmith.compiler.diagnostics import Diagnostic

from . import actions, completion, highlight, hover, navigation
from .positions import Lines
from .workspace import PackState, Workspace

log = logging.getLogger("cardsmith.lsp")

SEVERITY = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning,
            "note": T.DiagnosticSeverity.Information}
COALESCE_S = 0.003
LEGEND = T.SemanticTokensLegend(token_types=highlight.TOKEN_TYPES, token_modifiers=[])


class CardsmithServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("cardsmith", __version__)
        self.ws = Workspace()
        self._dirty: dict[Path, Path] = {}  # pack folder -> a changed file of it, waiting for its compile
        self._closed: set[Path] = set()
        self._flush_soon = False

    def codec(self):
        try:
            return self.workspace.position_codec
        except Exception:  # before initialize: the protocol's default, UTF-16
            return None

    def lines(self, path: Path) -> Lines:
        return Lines(self.ws.text(path) or "", self.codec())

    def cursor(self, params) -> tuple[Path, int, int]:
        self.flush()
        path = Path(to_fs_path(params.text_document.uri))
        line, col = self.lines(path).code_points(params.position)
        return path, line, col

    # ------------------------------------------------------------ diagnostics
    def refresh(self, path: Path, closed: bool = False) -> None:
        """Compile the pack `path` belongs to (with every open buffer) and publish its diagnostics (for a file
        just closed, also when it has none: the editor clears what it showed). The compile runs once the
        messages already received are handled: a burst of keystrokes is compiled once, at its last one."""
        folder = self.ws.pack_folder(path)
        if folder is None:
            return
        self._dirty[folder] = path
        if closed:
            self._closed.add(self.ws.key(path))
        if not self._flush_soon:
            self._flush_soon = True
            try:  # a few milliseconds: the reader takes in the messages that are already waiting first
                asyncio.get_running_loop().call_later(COALESCE_S, self.flush)
            except RuntimeError:  # no running loop (the server driven in-process): compile now
                self.flush()

    def flush(self) -> None:
        """Compile every pack with a change waiting, and publish (requests call it first: they see the latest)."""
        self._flush_soon = False
        dirty, closed = self._dirty, self._closed
        self._dirty, self._closed = {}, set()
        for folder in dirty:
            state = self.ws.compile(folder)
            self.publish(state, {p for p in closed if self.ws.pack_folder(p) == folder})

    def publish(self, state: PackState, also: set[Path] = frozenset()) -> None:
        by_file: dict[Path, list[Diagnostic]] = defaultdict(list)
        for d in state.result.diagnostics.items if state.result is not None else ():
            by_file[self.ws.key(d.span.file)].append(d)
        open_here = {p for p in self.ws.buffers if self.ws.pack_folder(p) == state.folder}  # told even when clean
        for path in sorted(set(by_file) | state.published | open_here | also):
            lines = self.lines(path)
            buf = self.ws.buffers.get(path)
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                uri=path.as_uri(), diagnostics=[self.to_lsp(d, lines) for d in by_file.get(path, [])],
                version=buf.version if buf is not None else None))
        state.published = set(by_file)

    def to_lsp(self, d: Diagnostic, lines: Lines) -> T.Diagnostic:
        related = [T.DiagnosticRelatedInformation(T.Location(self.ws.key(s.file).as_uri(),
                                                             self.lines(self.ws.key(s.file)).range(s)), m)
                   for m, s in d.notes if s is not None and s.file]
        if d.hint:
            related.insert(0, T.DiagnosticRelatedInformation(
                T.Location(self.ws.key(d.span.file).as_uri(), lines.range(d.span)), f"help: {d.hint}"))
        return T.Diagnostic(range=lines.range(d.span), message=d.message, severity=SEVERITY.get(str(d.severity)),
                            code=d.code, source="cardsmith", related_information=related or None,
                            data={"hint": d.hint} if d.hint else None)


server = CardsmithServer()


def _path(uri: str) -> Path | None:
    """The file of a URI; None for a buffer that is no file (untitled:, a diff view): nothing to do for it."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return Path(path) if path else None


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: CardsmithServer, params: T.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    path = _path(doc.uri)
    if path is not None:
        ls.ws.open(path, doc.text, doc.version)
        ls.refresh(path)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: CardsmithServer, params: T.DidChangeTextDocumentParams) -> None:
    path = _path(params.text_document.uri)
    if path is None:
        return
    text = ls.ws.text(path) or ""
    for change in params.content_changes:
        if isinstance(change, T.TextDocumentContentChangeWholeDocument) or not hasattr(change, "range"):
            text = change.text
        else:  # an incremental change: splice it in (positions in the client's units)
            lines = Lines(text, ls.codec())
            start = _offset(text, lines.code_points(change.range.start))
            end = _offset(text, lines.code_points(change.range.end))
            text = text[:start] + change.text + text[end:]
    ls.ws.change(path, text, params.text_document.version)
    ls.refresh(path)


def _offset(text: str, at: tuple[int, int]) -> int:
    line, col = at
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return min((starts[line] if line < len(starts) else len(text)) + col, len(text))


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: CardsmithServer, params: T.DidSaveTextDocumentParams) -> None:
    path = _path(params.text_document.uri)
    if path is not None:
        ls.refresh(path)


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: CardsmithServer, params: T.DidCloseTextDocumentParams) -> None:
    path = _path(params.text_document.uri)
    if path is None:
        return
    ls.ws.close(path)
    ls.refresh(path, closed=True)  # the file on disk again: an unsaved mistake no longer counts


@server.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_files(ls: CardsmithServer, params: T.DidChangeWatchedFilesParams) -> None:
    """Files changed on disk (saved by another program, a git checkout): their packs compile again."""
    for change in params.changes:
        path = _path(change.uri)
        if path is not None and path.suffix == ".yaml":
            ls.refresh(path)


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[" ", "(", ":"]))
def completions(ls: CardsmithServer, params: T.CompletionParams) -> T.CompletionList:
    path, line, col = ls.cursor(params)
    items = completion.complete(ls.ws, path, line, col, ls.lines(path))
    return T.CompletionList(is_incomplete=False, items=items)


@server.feature(T.TEXT_DOCUMENT_HOVER)
def on_hover(ls: CardsmithServer, params: T.HoverParams) -> T.Hover | None:
    path, line, col = ls.cursor(params)
    text = hover.hover(ls.ws, path, line, col)
    return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, text)) if text else None


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
def on_definition(ls: CardsmithServer, params: T.DefinitionParams) -> list[T.Location]:
    path, line, col = ls.cursor(params)
    return navigation.definition(ls.ws, path, line, col, ls.codec())


@server.feature(T.TEXT_DOCUMENT_REFERENCES)
def on_references(ls: CardsmithServer, params: T.ReferenceParams) -> list[T.Location]:
    path, line, col = ls.cursor(params)
    return navigation.references(ls.ws, path, line, col, params.context.include_declaration, ls.codec())


@server.feature(T.TEXT_DOCUMENT_PREPARE_RENAME)
def on_prepare_rename(ls: CardsmithServer, params: T.PrepareRenameParams):
    path, line, col = ls.cursor(params)
    o = navigation.prepare_rename(ls.ws, path, line, col)
    if o is None:
        return None
    return T.PrepareRenamePlaceholder(range=ls.lines(path).range(o.span), placeholder=o.name)


@server.feature(T.TEXT_DOCUMENT_RENAME, T.RenameOptions(prepare_provider=True))
def on_rename(ls: CardsmithServer, params: T.RenameParams) -> T.WorkspaceEdit | None:
    path, line, col = ls.cursor(params)
    try:
        return navigation.rename(ls.ws, path, line, col, params.new_name, ls.codec())
    except navigation.RenameError as e:
        from pygls.exceptions import JsonRpcInvalidParams

        raise JsonRpcInvalidParams(str(e)) from None


@server.feature(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
def on_semantic_tokens(ls: CardsmithServer, params: T.SemanticTokensParams) -> T.SemanticTokens:
    ls.flush()
    path = _path(params.text_document.uri)
    if path is None:
        return T.SemanticTokens(data=[])
    return T.SemanticTokens(data=highlight.semantic_tokens(ls.ws, path, ls.lines(path)))


@server.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
def on_code_action(ls: CardsmithServer, params: T.CodeActionParams) -> list[T.CodeAction]:
    path = _path(params.text_document.uri)
    if path is None:
        return []
    return actions.quick_fixes(params.text_document.uri, ls.ws.text(path) or "", list(params.context.diagnostics),
                               ls.codec())


def main(log_file: str | None = None) -> None:
    """Serve over the process's own standard input and output (never a wrapper another layer put on
    sys.stdout: the protocol's bytes must reach the editor as they are)."""
    if log_file:
        logging.basicConfig(filename=log_file, level=logging.INFO)
    import sys

    server.start_io(sys.__stdin__.buffer, sys.__stdout__.buffer)
