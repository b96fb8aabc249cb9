"""The compiler in one place: load -> schema -> parse -> expand -> check -> emit.

`compile_pack` is the public entry point. It always returns the diagnostics of the
run; the compiled pack only when there were no errors.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from cardsmith.bytecode import CardDef, ClaimDef, Code, CompiledPack, ModifierDef, TriggerDef

from . import ast as A
from .check import Checker, Context
from .diagnostics import Diagnostics, SourceCache, Span, did_you_mean
from .emit import Emitter, SpanTable, const_value
from .expand import ACTIVATION, BROKEN, Expander, build_macros
from .packs import PackSource, load_chain, resolve_pack_ref
from .parse import parse_expression, parse_program
from .phrasing import unphrased_macros
from .result import CompileResult
from .vocab import Entry, Vocabulary, build_vocabulary
from .yamlsrc import YamlDoc

if TYPE_CHECKING:
    from .incremental import CompileMemo


def compile_pack(ref: str | Path, diags: Diagnostics | None = None, cache: bool = False,
                 memo: CompileMemo | None = None) -> CompileResult:
    """Compile a pack given by built-in id or folder path.

    With `cache=True` a clean compile is kept on disk (compiler/cache.py) and reused while no source
    file, nor the compiler, changes; warnings are reported again on a hit. A hit carries the pack but
    no checked AST (`compiler` is None): tools that compile more programs against the pack (scenarios,
    describe) compile without the cache.

    With a `memo` (compiler/incremental.py: an editor compiling the same pack on every keystroke) files come
    from the memo's unsaved buffers, and a card whose file and rules did not change since the memo's last
    compile is not compiled again; the diagnostics are the same as without it."""
    diags = diags if diags is not None else Diagnostics()
    folder = resolve_pack_ref(str(ref))
    if folder is None:
        from .packs import builtin_packs

        diags.error("E024", f"no pack '{ref}': not a built-in pack id nor a folder with a pack.yaml",
                    Span(str(ref), 1, 1), hint=did_you_mean(str(ref), builtin_packs()))
        return CompileResult(None, diags)
    key = None
    if memo is not None:
        chain = load_chain(folder, diags, memo.read)
        return _Compiler(chain, diags, memo).run() if chain is not None else CompileResult(None, diags)
    if cache:
        from . import cache as disk

        key = disk.cache_key(folder)
        hit = disk.load(key) if key else None
        if hit is not None:
            diags.items.extend(hit[1])
            return CompileResult(hit[0], diags, cards_compiled=hit[2])
    with gc_paused():  # a compile makes hundreds of thousands of objects and frees few: collecting is wasted work
        chain = load_chain(folder, diags)
        if chain is None:
            return CompileResult(None, diags)
        before = len(diags.items)
        result = _Compiler(chain, diags).run()
    if key and result.ok:
        disk.store(key, result.pack, diags.items[before:], result.cards_compiled)
    return result


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while the block runs (as it was after). A compile allocates a great deal
    and keeps most of it: every automatic collection on the way would walk it all for nothing (14% of a
    built-in pack's compile, about 30% of a large one's)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _text_locator(doc: YamlDoc, path: tuple):
    return doc.text_locator(path)


class _Compiler:
    def __init__(self, chain: list[PackSource], diags: Diagnostics, memo: CompileMemo | None = None) -> None:
        self.chain = chain
        self.diags = diags
        self.memo = memo
        if memo is not None:
            memo.begin(chain)
        self.voc: Vocabulary = build_vocabulary([p.rules_doc for p in chain if p.rules_doc], diags)
        self.macros = memo.macros(self.voc, diags) if memo is not None else build_macros(self.voc, diags)
        self.expander = Expander(self.macros, diags)
        self.checker = Checker(self.voc, diags, set(self.macros) - {BROKEN}, self.expander.broken)
        # The checker points at a word on its source line: the line of the text compiled (an editor's unsaved
        # buffer, or the file as read), never a newer one on the disk.
        self.checker._lines = SourceCache({d.file: d.text for p in chain
                                           for d in (p.pack_doc, p.rules_doc, *p.card_docs) if d is not None})
        self.spans = memo.spans if memo is not None else SpanTable()
        self.emitter = Emitter(self.voc, self.spans)
        self.cards_compiled = 0
        self.asts: dict[str, object] = {}  # code name -> checked AST body or expression (describe reads it)
        self._parsed: dict[tuple[int, tuple], A.Program] = {}

    # ------------------------------------------------------------ programs from YAML
    def program(self, doc: YamlDoc, path: tuple, ctx: Context, name: str):
        """Parse, expand and check a program; returns its AST body or None."""
        prog = self._parsed.pop((id(doc), path), None)  # parsed already, looking for payment sources
        if prog is None:
            prog = self._parse(parse_program, doc, path)
        if prog is None:
            return None
        prog = self.expander.program(prog)
        before = (len(self.diags.errors), self.checker.silenced)
        self.checker.program(prog, ctx)
        if (len(self.diags.errors), self.checker.silenced) != before:
            return None
        self.asts[name] = prog.body
        return prog.body

    def expression(self, doc: YamlDoc, path: tuple, ctx: Context, want: str = "bool"):
        e = self._parse(parse_expression, doc, path)
        if e is None:
            return None
        # Expressions may use macros only through their arguments; expand for symmetry.
        e = self.expander.expand(e)
        before = len(self.diags.errors)
        if want == "value":  # a number or a condition (a ranking key: a condition counts as 1 or 0)
            if self.checker.expr(e, ctx) == "card":
                self.checker.err(ctx, "E102", "expected a number or a condition here, found a card", e.span)
        else:
            self.checker.expect(e, want, ctx)
        return e if len(self.diags.errors) == before else None

    def _parse(self, parse, doc: YamlDoc, path: tuple):
        text = str(doc._get(path))
        if self.memo is None:
            return parse(text, _text_locator(doc, path), self.diags)
        # an editor's compile: a text of a document that did not change is not parsed again
        return self.memo.parsed(self.diags, doc, path, text, lambda: parse(text, _text_locator(doc, path), self.diags))

    def code_for(self, entry: Entry | None, ctx: Context, name: str) -> Code | None:
        if entry is None:
            return None
        body = self.program(entry.doc, entry.path, ctx, name)
        return self.emitter.program(name, body) if body is not None else None

    # ------------------------------------------------------------ the run
    # ------------------------------------------------------------ payment sources
    def currencies(self) -> None:
        """Every currency some payment source pays, before any program is compiled: a 'pay' of such a
        currency compiles to the payment search, any other to HAS and LOSE as it always did. Sources are
        rules.yaml's payments and the 'pay ... with ...' statements of the cards' ongoing abilities."""
        voc = self.voc
        quiet = Diagnostics()  # the texts are compiled (and diagnosed) again, where they stand
        expander = Expander(self.macros, quiet)
        ongoing = {t for t, e in voc.timings.items() if isinstance(e.value, dict) and e.value.get("kind") == "ongoing"}
        entries = list(voc.payments)
        for src in self.chain:
            for doc in src.card_docs:
                for i, raw in enumerate((doc.value or {}).get("cards") or []):
                    for timing in (raw.get("abilities") or {}) if isinstance(raw, dict) else ():
                        if timing in ongoing:
                            entries.append(Entry(timing, None, doc, ("cards", i, "abilities", timing)))
        for entry in entries:
            text = entry.doc._get(entry.path)
            if not isinstance(text, str):
                continue
            prog = parse_program(text, _text_locator(entry.doc, entry.path), quiet)
            if prog is None:
                continue
            self._parsed[(id(entry.doc), entry.path)] = prog
            for ps in _pay_sources(expander.expand(prog.body)):
                voc.currencies.setdefault(ps.currency, entry)

    def rules_payments(self) -> list[dict]:
        out = []
        ctx = Context("payment")
        for entry in self.voc.payments:
            body = self.program(entry.doc, entry.path, ctx, entry.name)
            if body is None:
                continue
            sources = _pay_sources(body)
            if not _only_sources(body):
                self.diags.error("E120", "rules.yaml's payments holds payment sources only: 'pay CURRENCY with "
                                 "SOURCE [at RATE] [for a card with FILTERS] [: SPEND]'", entry.span)
                continue
            out += [self.emitter.payment(ps) for ps in sources]
        return out

    def unpaid_currencies(self) -> None:
        for name, entry in self.voc.currencies.items():
            if name not in self.voc.resources and name not in self.checker.paid:
                self.diags.warning("W120", f"the currency '{name}' is paid by payment sources but no 'pay' names it",
                                   entry.span, hint=did_you_mean(name, self.checker.paid) or
                                   "pay it ('pay 2 " + name + "') or remove its sources")

    def run(self) -> CompileResult:
        voc = self.voc
        top = self.chain[-1]
        self.currencies()
        payments = self.rules_payments()
        flow = Context("flow")
        setup = self.code_for(voc.setup, flow, "setup")
        game = self.code_for(voc.game, flow, "game")
        if voc.game is None:
            self.diags.error("E113", "rules.yaml has no 'game' program: nothing would run",
                             (top.rules_doc or top.pack_doc).span(()))
        # Macro bodies are checked where they are used; check unused ones too so errors surface.
        zone_on_empty = {}
        for zname, entry in voc.zones.items():
            if "on-empty" in entry.value:
                sub = Entry(zname, entry.value["on-empty"], entry.doc, (*entry.path, "on-empty"))
                code = self.code_for(sub, flow, f"zone {zname} on-empty")
                if code:
                    zone_on_empty[zname] = code
        piece_when_full = {}
        for pname, entry in voc.pieces.items():
            if "when-full" in entry.value:
                sub = Entry(pname, entry.value["when-full"], entry.doc, (*entry.path, "when-full"))
                code = self.code_for(sub, Context("flow", has_it=True), f"piece {pname} when-full")
                if code:
                    piece_when_full[pname] = code
        scoring = []
        for sid, entry in voc.scoring.items():
            if "score" not in entry.value and not entry.value.get("during-play"):
                self.diags.error("E140", f"scoring step '{sid}' has no 'score' program and takes no points during play",
                                 entry.span, hint="give it a 'score' program, or declare it 'during-play: true'")
                continue
            sub = Entry(sid, entry.value.get("score", "nothing"), entry.doc, (*entry.path, "score"))
            code = self.code_for(sub, Context("scoring", scoring=True), f"scoring {sid}") \
                if "score" in entry.value else self.emitter.program(f"scoring {sid}", ())
            if code:
                scoring.append({"id": sid, "name": entry.value.get("name", sid),
                                "names": entry.value.get("names", {}), "code": code,
                                **({"during-play": True} if entry.value.get("during-play") else {}),
                                **({"seats": entry.value["seats"]} if "seats" in entry.value else {})})
        tiebreakers = []
        for entry in voc.tiebreakers:
            e = self.expression(entry.doc, entry.path, Context("flow"), want="int")
            if e is not None:
                self.asts[entry.name] = e
                tiebreakers.append(self.emitter.expression(entry.name, e))

        ranking = []
        for entry in voc.ranking:
            # 'most: EXPR' (or EXPR alone) places the higher first, 'fewest: EXPR' the lower: its value negated
            way = next(iter(entry.value)) if isinstance(entry.value, dict) else "most"
            path = (*entry.path, way) if isinstance(entry.value, dict) else entry.path
            e = self.expression(entry.doc, path, Context("flow", scoring=True), want="value")
            if e is not None:
                self.asts[entry.name] = e
                ranking.append(self.emitter.expression(entry.name, A.Neg(e, span=e.span) if way == "fewest" else e))

        windows = {}
        for wname, options in voc.windows.items():
            windows[wname] = []
            for i, entry in enumerate(options):
                name = f"window {wname} {i + 1}"
                body = self.program(entry.doc, entry.path, Context("flow"), name)
                if body is not None:
                    guard = self.emitter.guard_code(f"{name} guard", body)
                    windows[wname].append({"label": str(entry.value).strip(), "guard": guard,
                                           "code": self.emitter.program(name, body)})
        claims = self.rule_claims()
        automa = self.automa_seats()

        self.card_defaults_checked: set[int] = set()
        cards = self.cards()
        unphrased_macros(voc.glossary, self.macros, self.asts, [c.id for c in cards], self.diags)
        self.unused_macros()
        self.unpaid_currencies()
        if self.diags.has_errors:
            return CompileResult(None, self.diags, self.chain, self.cards_compiled, self)
        pack = CompiledPack(
            id=top.id, name=top.name, version=top.version, chain=[p.id for p in self.chain],
            players=voc.players,
            # a player flag is kept as a counter of 0 or 1 of each player ('mark you passed')
            resources={**{n: dict(e.value or {}) for n, e in voc.resources.items()},
                       **{n: {"max": 1, "flag": True} for n in voc.player_flags}},
            counters={n: dict(e.value or {}) for n, e in voc.counters.items()},
            params={n: e.value for n, e in voc.params.items()},
            zones={n: {k: v for k, v in e.value.items() if k != "on-empty"} for n, e in voc.zones.items()},
            card_types={n: dict(e.value or {}) for n, e in voc.card_types.items()},
            traits={n: list(e.value) for n, e in voc.traits.items()},
            stats={n: (e.value or {}).get("default", 0) for n, e in voc.stats.items()},
            pieces={n: {k: v for k, v in (e.value or {}).items() if k != "when-full"} for n, e in voc.pieces.items()},
            flags=list(voc.flags),
            timings={n: dict(e.value) for n, e in voc.timings.items()},
            activation=dict(voc.activation.value) if voc.activation else {},
            statistics=dict(voc.statistics.value) if voc.statistics else {},
            ranking=ranking, windows=windows, claims=claims,
            automa=automa,
            cards=cards, setup=setup, game=game, scoring=scoring, tiebreakers=tiebreakers,
            zone_on_empty=zone_on_empty, piece_when_full=piece_when_full, spans=self.spans.spans,
            names=voc.names, payments=payments,
            may_fall_short=[dict(e.value) for e in voc.may_fall_short],
        )
        return CompileResult(pack, self.diags, self.chain, self.cards_compiled, self)

    def automa_seats(self) -> list[dict]:
        """rules.yaml 'automa': each seat as the runtime reads it. A seat's `players` (the games it sits in) must
        meet the pack's own range (E013)."""
        voc, out = self.voc, []
        for n, e in voc.automa.items():
            seat = {"id": n, "name": e.value.get("name", n), "names": dict(e.value.get("names") or {}),
                    "opponent": e.value.get("opponent", True)}
            if "players" in e.value:
                lo, hi = e.value["players"].get("min", voc.players[0]), e.value["players"].get("max", voc.players[1])
                if max(lo, voc.players[0]) > min(hi, voc.players[1]):
                    self.diags.error("E013", f"automa seat '{n}' sits in games of {lo} to {hi} players, but the pack "
                                     f"is for {voc.players[0]} to {voc.players[1]}: it would sit in no game",
                                     e.doc.span((*e.path, "players")))
                seat["players"] = [lo, hi]
            if e.value.get("bottomless"):
                seat["bottomless"] = True
            out.append(seat)
        return out

    def rule_claims(self) -> list[ClaimDef]:
        """rules.yaml 'as-soon-as': claims for every player, in turn from the active player, or for the
        players of the loop a claim is written in ('each player from first player: as soon as ...')."""
        out = []
        for entry in self.voc.claims:
            body = self.program(entry.doc, entry.path, Context("flow", allow_live=True), entry.name)
            for s in body or ():
                players = ["each", "active"]
                if isinstance(s, A.Scoped) and s.players.kind == "each" and len(s.body) == 1:
                    start = s.players.start
                    players = ["each", start.kind if start else "you"]
                    s = s.body[0]
                if isinstance(s, A.AsSoonAs):
                    out.append(self.claim(s, entry.name))
                    out[-1].players = players
                else:
                    self.diags.error("E111", "rules.yaml 'as-soon-as' holds claims: 'as soon as COND: ...', alone or "
                                     "in a loop over the players ('each player from first player: as soon as ...')",
                                     s.span)
        return out

    def claim(self, s: A.AsSoonAs, name: str) -> ClaimDef:
        query = self.emitter.query(s.query) if s.query is not None else None
        return ClaimDef(self.emitter.expression(f"{name} as soon as", s.cond), query,
                        self.emitter.program(f"{name} as soon as: body", s.body))

    def unused_macros(self) -> None:
        """Check the macros nothing used, on their own: $parameters stand for any name, and the
        context is as permissive as any use could be, so only real mistakes are reported."""
        if self.expander.cut_short:
            return  # the macros past the cut look unused, and expanding each again repeats the same error
        ctx = Context("macro", has_this=True, has_it=True, scoring=True, allow_live=True, macro_def=True)
        for m in self.expander.macros():
            if m.signature in self.expander.used:
                continue
            body = self.expander.expand(m.body.body, (m.signature,))
            self.checker.stmts(body, ctx)
        order = self.macros.get(ACTIVATION)
        if order and ACTIVATION not in self.expander.used:  # no 'activate ... abilities' anywhere: check it alone
            self.checker.stmts(self.expander.expand(order[0].body.body, (ACTIVATION,)), ctx)
        for m in (*self.expander.values.values(), *self.expander.filters.values()):
            if m.signature in self.expander.used:
                continue
            body = self.expander.expand(m.body, ("=" + m.name,))
            if isinstance(body, tuple):
                for f in body:
                    self.checker.filter(f, ctx)
            else:
                self.checker.expr(body, ctx)

    def snippet(self, doc: YamlDoc, path: tuple, name: str, scoring: bool = False) -> Code | None:
        """Compile one more flow-level program (a scenario step, a REPL line) against this pack."""
        body = self.program(doc, path, Context("flow", scoring=scoring), name)
        return self.emitter.program(name, body) if body is not None else None

    def snippet_expression(self, doc: YamlDoc, path: tuple, name: str) -> Code | None:
        e = self.expression(doc, path, Context("flow"), want="int")
        if e is None:
            return None
        return self.emitter.expression(name, e)

    # ------------------------------------------------------------ cards
    def cards(self) -> list[CardDef]:
        out: dict[str, CardDef] = {}
        first_seen: dict[str, tuple[str, Span]] = {}
        for src in self.chain:
            for doc in src.card_docs:
                defaults = (doc.value or {}).get("defaults") or {}
                for i, raw in enumerate((doc.value or {}).get("cards") or []):
                    path = ("cards", i)
                    cid = raw["id"]
                    if cid in first_seen and first_seen[cid][0] == src.id:
                        self.diags.error("E022", f"duplicate card id '{cid}' in pack '{src.id}'",
                                         doc.span((*path, "id")), notes=(("first defined here", first_seen[cid][1]),))
                        continue
                    self.replacement(doc, path, raw, first_seen)
                    first_seen[cid] = (src.id, doc.span((*path, "id")))
                    if cid in out:  # a card of an earlier pack replaced: its abilities go with it
                        for name in [n for n in self.asts if n.startswith(cid + " ")]:
                            del self.asts[name]
                    card = self.card(doc, path, raw, defaults, src.id)
                    if card is None:
                        continue
                    out[cid] = card
                    back = raw.get("back")
                    if back:
                        bpath = (*path, "back")
                        merged = {**{k: v for k, v in raw.items() if k not in ("back", "id", "name", "names",
                                                                               "abilities", "requires")}, **back}
                        bcard = self.card(doc, bpath, merged, defaults, src.id)
                        if bcard is not None:
                            if bcard.id in out or bcard.id in first_seen:
                                self.diags.error("E022", f"duplicate card id '{bcard.id}'", doc.span((*bpath, "id")))
                            card.back = bcard.id
                            bcard.back = cid
                            bcard.is_back = True
                            first_seen[bcard.id] = (src.id, doc.span((*bpath, "id")))
                            out[bcard.id] = bcard
        return list(out.values())

    def card(self, doc: YamlDoc, path: tuple, raw: dict, defaults: dict, pack_id: str) -> CardDef | None:
        if self.memo is not None:  # a card of a file and rules unchanged since the memo's last compile: kept
            return self.memo.card(self, doc, path, pack_id, lambda: self._card(doc, path, raw, defaults, pack_id))
        return self._card(doc, path, raw, defaults, pack_id)

    def _card(self, doc: YamlDoc, path: tuple, raw: dict, defaults: dict, pack_id: str) -> CardDef | None:
        voc = self.voc
        errors_before = len(self.diags.errors)
        self.check_defaults(doc, defaults)
        ctype = raw.get("type", defaults.get("type"))
        type_known = ctype in voc.card_types
        if ctype is None:
            self.diags.error("E010", f"card '{raw['id']}' has no type", doc.span(path),
                             hint=f"card types: {', '.join(voc.card_types)}" if voc.card_types else
                             "declare card types in rules.yaml")
        elif not type_known and "type" in raw:
            self.diags.error("E101", f"unknown card type '{ctype}'", doc.span((*path, "type")),
                             hint=did_you_mean(ctype, voc.card_types))
        traits: dict[str, list[str]] = {}
        own_traits = raw.get("traits") or {}
        for tname, tval in {**(defaults.get("traits") or {}), **own_traits}.items():
            tpath = (*path, "traits", tname)
            if tname not in own_traits:  # from defaults: checked once, at the defaults entry
                if tname in voc.traits:
                    traits[tname] = [tval] if isinstance(tval, str) else list(tval)
                continue
            values = [tval] if isinstance(tval, str) else list(tval)
            if tname not in voc.traits:
                self.diags.error("E101", f"unknown card trait '{tname}'", doc.key_span(tpath),
                                 hint=did_you_mean(tname, voc.traits))
                continue
            allowed = voc.traits[tname].value
            for j, v in enumerate(values):
                if v not in allowed:
                    span = doc.span((*tpath, j)) if isinstance(tval, list) else doc.span(tpath)
                    self.diags.error("E101", f"'{v}' is not a value of trait '{tname}'", span,
                                     hint=did_you_mean(v, allowed) or f"values: {', '.join(allowed)}")
            traits[tname] = values
        stats = {}
        own_stats = raw.get("stats") or {}
        for sname, sval in {**(defaults.get("stats") or {}), **own_stats}.items():
            if sname not in own_stats:
                if sname in voc.stats:
                    stats[sname] = sval
                continue
            if sname not in voc.stats:
                self.diags.error("E101", f"unknown stat '{sname}'", doc.key_span((*path, "stats", sname)),
                                 hint=did_you_mean(sname, voc.stats) or f"stats: {', '.join(voc.stats)}")
                continue
            stats[sname] = sval
        card = CardDef(id=raw["id"], name=raw["name"], type=ctype, span=self.spans.add(doc.span(path)),
                       number=str(raw["number"]) if "number" in raw else None,
                       original=bool(raw.get("original", defaults.get("original", False))),
                       copies=self.copies(doc, path, raw, defaults),
                       names=dict(raw.get("names") or {}), traits=traits, stats=stats, pack=pack_id)
        for timing, _text in (raw.get("abilities") or {}).items():
            apath = (*path, "abilities", timing)
            tentry = voc.timings.get(timing)
            if tentry is None:
                self.diags.error("E101", f"unknown timing '{timing}'", doc.key_span(apath),
                                 hint=did_you_mean(timing, voc.timings) or f"timings: {', '.join(voc.timings)}")
                continue
            allowed_types = tentry.value.get("types")
            types_known = all(t in voc.card_types for t in allowed_types or ())
            if allowed_types and type_known and types_known and ctype not in allowed_types:
                self.diags.error("E103", f"{_article(ctype)} {ctype} card cannot have a '{timing}' ability",
                                 doc.key_span(apath), hint=f"'{timing}' is for {', '.join(allowed_types)}")
                continue
            kind = tentry.value["kind"]
            name = f"{raw['id']} {timing}"
            if kind in ("condition", "value"):  # an expression, read as 'NAME of CARD'
                e = self.expression(doc, apath, Context("condition", ctype, has_this=True),
                                    want="bool" if kind == "condition" else "int")
                if e is not None:
                    self.asts[name] = e
                    card.conditions[timing] = self.emitter.expression(name, e)
                continue
            ctx = Context("ability", ctype, has_this=True, scoring=kind in ("end", "scoring"),
                          allow_live=kind == "ongoing")
            body = self.program(doc, apath, ctx, name)
            if body is None:
                continue
            if kind == "activated" and voc.activation and voc.activation.value.get("partial-rewards"):
                body = partial_rewards(body)
            if kind == "ongoing":
                self.live(card, body, doc, apath)
                continue
            card.abilities[timing] = self.emitter.program(name, body)
            cost = _leading_cost(body)
            if cost is not None:
                card.checks[timing] = self.emitter.cost_check(f"{name} cost", cost)
        if "requires" in raw:
            e = self.expression(doc, (*path, "requires"), Context("condition", ctype, has_this=True))
            if e is not None:
                self.asts[f"{raw['id']} requires"] = e
                card.conditions["requires"] = self.emitter.expression(f"{raw['id']} requires", e)
        if isinstance(raw.get("copies", defaults.get("copies")), dict):
            card.copies_by_players = dict(raw.get("copies", defaults.get("copies")))
        self.cards_compiled += 1
        return card if len(self.diags.errors) == errors_before else None

    def copies(self, doc: YamlDoc, path: tuple, raw: dict, defaults: dict) -> int:
        """The most copies of the card a game uses. Copies by player count that do not say how many for some player
        count of the pack are W152: the card would silently never enter those games (an explicit 0 says so)."""
        copies = raw.get("copies", defaults.get("copies", 1))
        if not isinstance(copies, dict):
            return int(copies)
        where = (*path, "copies") if "copies" in raw else ("defaults", "copies")
        lo, hi = self.voc.players
        none = [n for n in range(lo, hi + 1) if str(n) not in copies]
        if none:
            counts = " or ".join(map(str, none))
            self.diags.warning("W152", f"card '{raw['id']}' has no copies in a game of {counts} players, so it never "
                               "enters such a game", doc.span(where),
                               hint=f"give copies for {counts} players (\"{none[0]}\": 0 if the card is left out then)")
        outside = [k for k in copies if not lo <= int(k) <= hi]
        if outside:
            self.diags.warning("W152", f"card '{raw['id']}' gives copies for {', '.join(outside)} players, but the "
                               f"pack is for {lo} to {hi}", doc.span(where))
        return max(copies.values())

    def replacement(self, doc: YamlDoc, path: tuple, raw: dict, first_seen: dict[str, tuple[str, Span]]) -> None:
        """A card of a later pack with the id of an earlier pack's card replaces it: said with 'replaces: true',
        or W151 (an id reused by accident silently drops the base card)."""
        cid = raw["id"]
        earlier = first_seen.get(cid)
        if earlier is not None and not raw.get("replaces"):
            self.diags.warning("W151", f"card '{cid}' replaces the card '{cid}' of pack '{earlier[0]}' without "
                               "saying so", doc.span((*path, "id")), notes=(("the card it replaces", earlier[1]),),
                               hint="add 'replaces: true' to the card if it is meant to replace that one; otherwise "
                               "give it an id of its own")
        elif earlier is None and raw.get("replaces"):
            self.diags.warning("W151", f"card '{cid}' says it replaces a card, but no pack it extends has a card "
                               f"'{cid}'", doc.key_span((*path, "replaces")),
                               hint=did_you_mean(cid, first_seen) or "drop 'replaces: true'")

    def check_defaults(self, doc: YamlDoc, defaults: dict) -> None:
        """A file's `defaults:` are checked once, where they are written (not once per card)."""
        if not defaults or id(doc) in self.card_defaults_checked:
            return
        self.card_defaults_checked.add(id(doc))
        voc = self.voc
        base = ("defaults",)
        ctype = defaults.get("type")
        if ctype is not None and ctype not in voc.card_types:
            self.diags.error("E101", f"unknown card type '{ctype}'", doc.span((*base, "type")),
                             hint=did_you_mean(ctype, voc.card_types))
        for tname, tval in (defaults.get("traits") or {}).items():
            tpath = (*base, "traits", tname)
            if tname not in voc.traits:
                self.diags.error("E101", f"unknown card trait '{tname}'", doc.key_span(tpath),
                                 hint=did_you_mean(tname, voc.traits))
                continue
            allowed = voc.traits[tname].value
            for j, v in enumerate([tval] if isinstance(tval, str) else tval):
                if v not in allowed:
                    span = doc.span((*tpath, j)) if isinstance(tval, list) else doc.span(tpath)
                    self.diags.error("E101", f"'{v}' is not a value of trait '{tname}'", span,
                                     hint=did_you_mean(v, allowed) or f"values: {', '.join(allowed)}")
        for sname in defaults.get("stats") or {}:
            if sname not in voc.stats:
                self.diags.error("E101", f"unknown stat '{sname}'", doc.key_span((*base, "stats", sname)),
                                 hint=did_you_mean(sname, voc.stats))

    def live(self, card: CardDef, body: tuple, doc: YamlDoc, path: tuple) -> None:
        """Triggers, modifiers and prohibitions of an ongoing ability."""
        for s in body:
            if isinstance(s, A.Group):  # plain groups and macro calls alike
                self.live(card, s.body, doc, path)
            elif isinstance(s, A.Trigger):
                name = s.object if isinstance(s.object, str) else None
                filters = [self.emitter.filter(f) for f in s.object.filters] if isinstance(s.object, A.Query) else None
                verb = _base_verb(s.verb)
                code = self.emitter.program(f"{card.id} when {s.subject} {s.verb}", s.body)
                card.triggers.append(TriggerDef(s.subject, verb, name, filters, code))
            elif isinstance(s, A.Modify):
                # No zones named: the modifier applies to matching cards wherever they are (e.g. in hand).
                q = self.emitter.query(s.query) if s.query.zones else \
                    {"zones": [], "filters": [self.emitter.filter(f) for f in s.query.filters]}
                card.modifiers.append(ModifierDef(s.stat, q, const_value(s.by, self.voc)))
            elif isinstance(s, A.Prevent):
                card.prevents.append({"names": list(s.names), "opponents": s.opponents, "scope": s.scope})
            elif isinstance(s, A.AsSoonAs):
                card.claims.append(self.claim(s, card.id))
            elif isinstance(s, A.PaySource):
                card.payments.append(self.emitter.payment(s))
            else:
                self.diags.error("E111", "an ongoing ability holds only triggers ('when ...'), modifiers "
                                 "('modify ...'), prohibitions ('prevent ...'), claims ('as soon as ...') and "
                                 "payment sources ('pay ... with ...')", s.span)


def _pay_sources(body: tuple) -> list[A.PaySource]:
    """The payment sources at the top of a program (through plain groups and macro bodies)."""
    out = []
    for s in body:
        if isinstance(s, A.Group):
            out += _pay_sources(s.body)
        elif isinstance(s, A.PaySource):
            out.append(s)
    return out


def _only_sources(body: tuple) -> bool:
    return all(_only_sources(s.body) if isinstance(s, A.Group) else isinstance(s, A.PaySource | A.Nothing)
               for s in body)


def partial_rewards(node):
    """Rewards taken in part: exact amounts of gains, placements and moves become 'up to'.
    Costs (before ':') stay exact, since they are paid in full or not at all."""
    import dataclasses

    if isinstance(node, tuple):
        return tuple(partial_rewards(n) for n in node)
    if isinstance(node, A.Costed):
        return dataclasses.replace(node, body=partial_rewards(node.body))
    if isinstance(node, A.Gain | A.Place | A.Move) and node.amount.kind == "exact":
        return dataclasses.replace(node, amount=A.Amount("up_to", node.amount.value, span=node.amount.span))
    if isinstance(node, A.Group | A.If | A.Scoped | A.ForEach | A.Repeat | A.ChooseCard | A.May):
        changes = {}
        for f in dataclasses.fields(node):
            v = getattr(node, f.name)
            nested = isinstance(v, tuple) and v and isinstance(v[0], A.Node)
            if nested or (f.name == "body" and isinstance(v, A.Node)):
                changes[f.name] = partial_rewards(v)
        return dataclasses.replace(node, **changes)
    if isinstance(node, A.ChooseOne):
        return dataclasses.replace(node, options=tuple(partial_rewards(o) for o in node.options))
    return node


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _leading_cost(body: tuple):
    """The cost of an ability that is 'cost: reward' as a whole, for the can-it-be-paid check."""
    if len(body) == 1 and isinstance(body[0], A.Costed):
        return body[0].cost
    if len(body) == 1 and isinstance(body[0], A.Group):
        return _leading_cost(body[0].body)
    return None


def _base_verb(verb: str) -> str:
    """'plays' and 'play' name the same event."""
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith("es") and verb[:-2].endswith(("sh", "ch", "x", "ss")):
        return verb[:-2]
    if verb.endswith("s") and not verb.endswith("ss"):
        return verb[:-1]
    return verb
