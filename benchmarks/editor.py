"""The language server: keystroke to diagnostics, for one card file of Earth and of Terraforming Mars.

Two figures per pack, each a median over keystrokes typed into one ability text of the pack's largest card file:

- the server's own work per keystroke (CPU time of this process: the incremental compile through the pack's
  CompileMemo with every open buffer, and the conversion to LSP diagnostics), against a compile of the same
  pack from scratch in the same run;
- wall-clock over LSP: `cardsmith lsp` in a child process, a didChange sent over stdio until the
  publishDiagnostics for that version arrives (what an editor waits for; other processes on the machine
  count here).

Issue 17's goals: at most 150 ms for a card file of Earth, 400 ms for one of Terraforming Mars.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import time
from pathlib import Path

from .report import Table

CASES = (("earth", "flora.yaml", 150), ("terraforming-mars", "cards-001-050.yaml", 400))
CLOCK = time.process_time


def _keystrokes(text: str, count: int) -> list[str]:
    """The file after each of `count` keystrokes typing ', gain 1 x' (again and again) into its first ability."""
    at = text.index('"', text.index("abilities:")) + 1
    at = text.index('"', at)  # the end of the first quoted ability text
    typed = ", gain 1 x" * (count // 10 + 1)
    return [text[:at] + typed[:n] + text[at:] for n in range(1, count + 1)]


def _server_work(folder: Path, file: Path, versions: list[str]) -> tuple[list[float], float]:
    from cardsmith.compiler import compile_pack
    from cardsmith.compiler.diagnostics import Diagnostics
    from cardsmith.lsp.positions import Lines
    from cardsmith.lsp.server import CardsmithServer

    server = CardsmithServer()
    ws = server.ws
    ws.open(file, file.read_text(encoding="utf-8"), 0)
    ws.compile(folder)  # the file opened: the first compile fills the memo
    times = []
    for n, text in enumerate(versions, start=1):
        gc.collect()
        t = CLOCK()
        ws.change(file, text, n)
        state = ws.compile(folder)
        lines = Lines(text)
        for d in state.result.diagnostics.items:
            server.to_lsp(d, lines)
        times.append(CLOCK() - t)
    scratch = min(_timed(lambda: compile_pack(folder, Diagnostics())) for _ in range(3))
    return times, scratch


def _timed(fn) -> float:
    gc.collect()
    t = CLOCK()
    fn()
    return CLOCK() - t


async def _over_stdio(file: Path, versions: list[str]) -> list[float]:
    from lsprotocol import types as T
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("cardsmith-benchmark", "1")
    arrived: dict[int, float] = {}
    waiting: dict[int, asyncio.Event] = {}

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _published(params: T.PublishDiagnosticsParams) -> None:
        if params.uri == file.as_uri() and params.version in waiting:
            arrived[params.version] = time.perf_counter()
            waiting[params.version].set()

    await client.start_io(sys.executable, "-m", "cardsmith.lsp")
    try:
        await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(),
                                                         root_uri=file.parent.parent.as_uri()))
        client.initialized(T.InitializedParams())
        waiting[0] = asyncio.Event()
        client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
            file.as_uri(), "yaml", 0, file.read_text(encoding="utf-8"))))
        await asyncio.wait_for(waiting[0].wait(), 120)
        waits = []
        for n, text in enumerate(versions, start=1):
            waiting[n] = asyncio.Event()
            sent = time.perf_counter()
            client.text_document_did_change(T.DidChangeTextDocumentParams(
                T.VersionedTextDocumentIdentifier(version=n, uri=file.as_uri()),
                [T.TextDocumentContentChangeWholeDocument(text=text)]))
            await asyncio.wait_for(waiting[n].wait(), 60)
            waits.append(arrived[n] - sent)
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
    return waits


def lsp_rows(table: Table, keystrokes: int) -> None:
    from cardsmith.compiler.packs import resolve_pack_ref

    table.section(f"language server: keystroke to diagnostics ({keystrokes} keystrokes in one ability text)")
    for pack, name, goal_ms in CASES:
        folder = resolve_pack_ref(pack)
        file = folder / name
        versions = _keystrokes(file.read_text(encoding="utf-8"), keystrokes)
        work, scratch = _server_work(folder, file, versions)
        median = statistics.median(work)
        table.add(f"  {pack} {name}: server work (CPU)", f"{median * 1000:.1f} ms (max {max(work) * 1000:.1f})",
                  f"compile from scratch: {scratch * 1000:.0f} ms", median / scratch, "report",
                  note=f"median of {len(work)} keystrokes; the incremental compile keeps every unchanged card")
        waits = asyncio.run(_over_stdio(file, versions))
        wall = statistics.median(waits)
        table.add(f"{pack} {name}: keystroke to published diagnostics (LSP, wall)",
                  f"{wall * 1000:.1f} ms (max {max(waits) * 1000:.1f})", f"goal: {goal_ms} ms", wall * 1000 / goal_ms,
                  "<= 1", note=f"median of {len(waits)} didChange -> publishDiagnostics round trips over stdio; "
                               "ratio = median / goal")
