"""A synchronous face on pygls' language client, for tests that drive a language server over stdio.

The client runs its asyncio loop in a thread; tests call `request` and `notify` and wait for published
diagnostics with `diagnostics_for`, bounded by counts of events, never by a clock they assert on.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient


class StdioClient:
    def __init__(self, cmd: list[str], cwd: str | None = None, env: dict | None = None,
                 configuration: Callable[[T.ConfigurationItem], Any] | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self.client = LanguageClient("cardsmith-tests", "1")
        self.published: dict[str, list[T.Diagnostic]] = {}
        self.versions: dict[str, int] = {}  # publications received per document
        self.document_versions: dict[str, int | None] = {}  # the document version of the latest publication
        self.messages: list[str] = []
        self._changed = threading.Condition()
        self._configuration = configuration or (lambda item: None)

        @self.client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diagnostics(params: T.PublishDiagnosticsParams) -> None:
            with self._changed:
                self.published[params.uri] = list(params.diagnostics)
                self.document_versions[params.uri] = params.version
                self.versions[params.uri] = self.versions.get(params.uri, 0) + 1
                self._changed.notify_all()

        @self.client.feature(T.WORKSPACE_CONFIGURATION)
        def _configuration(params: T.ConfigurationParams):
            return [self._configuration(item) for item in params.items]

        @self.client.feature(T.CLIENT_REGISTER_CAPABILITY)
        def _register(params) -> None:
            return None

        @self.client.feature(T.WINDOW_LOG_MESSAGE)
        def _log(params: T.LogMessageParams) -> None:
            self.messages.append(params.message)

        self._run(self.client.start_io(*cmd, cwd=cwd, env=env))

    def _run(self, coro, timeout: float = 120):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def request(self, method: str, params) -> Any:
        """`method` is the client's `*_async` method name, e.g. 'text_document_hover_async'."""
        return self._run(getattr(self.client, method)(params))

    def notify(self, method: str, params) -> None:
        fn = getattr(self.client, method)
        done = threading.Event()

        def send() -> None:
            fn(params)
            done.set()

        self.loop.call_soon_threadsafe(send)
        done.wait(30)

    def initialize(self, root_uri: str, capabilities: T.ClientCapabilities | None = None,
                   options: Any = None) -> T.InitializeResult:
        caps = capabilities or T.ClientCapabilities(
            text_document=T.TextDocumentClientCapabilities(
                completion=T.CompletionClientCapabilities(
                    completion_item=T.ClientCompletionItemOptions(snippet_support=False)),
                hover=T.HoverClientCapabilities(content_format=[T.MarkupKind.Markdown, T.MarkupKind.PlainText]),
                publish_diagnostics=T.PublishDiagnosticsClientCapabilities()),
            workspace=T.WorkspaceClientCapabilities(
                configuration=True, workspace_edit=T.WorkspaceEditClientCapabilities(document_changes=False)))
        result = self.request("initialize_async", T.InitializeParams(
            capabilities=caps, root_uri=root_uri, process_id=None, initialization_options=options,
            workspace_folders=[T.WorkspaceFolder(uri=root_uri, name="root")]))
        self.notify("initialized", T.InitializedParams())
        return result

    def open(self, uri: str, text: str, language: str = "yaml", version: int = 1) -> None:
        self.notify("text_document_did_open", T.DidOpenTextDocumentParams(
            T.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)))

    def change(self, uri: str, text: str, version: int) -> None:
        self.notify("text_document_did_change", T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [T.TextDocumentContentChangeWholeDocument(text=text)]))

    def wait_for_diagnostics(self, uri: str, after: int = 0, until: Callable[[list], bool] | None = None,
                             waits: int = 30) -> list[T.Diagnostic]:
        """The diagnostics of `uri` once more than `after` publications arrived (and `until` holds);
        each wait is a second at most, `waits` of them in all."""
        with self._changed:
            for _ in range(waits):
                if self.versions.get(uri, 0) > after and (until is None or until(self.published[uri])):
                    return self.published[uri]
                self._changed.wait(1)
        raise AssertionError(f"no diagnostics for {uri} (published: {sorted(self.published)})")

    def publications(self, uri: str) -> int:
        with self._changed:
            return self.versions.get(uri, 0)

    def close(self) -> None:
        try:
            self.request("shutdown_async", None)
            self.notify("exit", None)
        except Exception:  # a server that died already: nothing to shut down
            pass
        with contextlib.suppress(Exception):
            self._run(self.client.stop(), timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
