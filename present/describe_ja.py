"""Japanese text for compiled programs (the describe back end's second language).

Plain rulebook style (だ・である調, as in the rule documents the project started from): each
statement is a clause ending in a verb in dictionary form ("土を2個獲得する"); clauses in a row
are joined with the verb's continuative form ("土を2個獲得し、カードを1枚引く。"). Words come from
the pack (names.ja, glossary ja); counters from the glossary's ja-counter (default 個, cards 枚).
"""

from __future__ import annotations

from typing import ClassVar

from cardsmith.compiler import ast as A

from .describe import COMPARISONS, CallInfo, Clause, Renderer

# ------------------------------------------------------------------------ conjugation

_GODAN = {
    "う": ("い", "って", "った"), "く": ("き", "いて", "いた"), "ぐ": ("ぎ", "いで", "いだ"),
    "す": ("し", "して", "した"), "つ": ("ち", "って", "った"), "ぬ": ("に", "んで", "んだ"),
    "ぶ": ("び", "んで", "んだ"), "む": ("み", "んで", "んだ"), "る": ("り", "って", "った"),
}
_E_I_ROW = set("えけげせぜてでねへべぺめれいきぎしじちぢにひびぴみり")
_ICHIDAN_KANJI = set("得見寝着居似煮干")
_FORMS = {"stem": 0, "te": 1, "ta": 2}


def conjugate(text: str, form: str) -> str:
    """The continuative ('stem'), te or ta form of a clause that ends in a verb's dictionary form."""
    i = _FORMS[form]
    if text.endswith("）") and "（" in text:  # '芽を土に変換する（…）' -> '芽を土に変換し（…）'
        head, paren = text[: text.rindex("（")], text[text.rindex("（"):]
        return conjugate(head, form) + paren
    if text.endswith("する"):
        return text[:-2] + ("し", "して", "した")[i]
    if text.endswith("くる"):
        return text[:-2] + ("き", "きて", "きた")[i]
    if text.endswith("よい") or text.endswith("ない"):
        return text[:-1] + ("く", "くて", "かった")[i]
    if text.endswith("行く"):
        return text[:-1] + ("き", "って", "った")[i]
    if text.endswith("る") and len(text) >= 2 and (text[-2] in _E_I_ROW or text[-2] in _ICHIDAN_KANJI):
        return text[:-1] + ("", "て", "た")[i]
    last = text[-1:]
    if last in _GODAN:
        return text[:-1] + _GODAN[last][i]
    return text


def _list(parts: list[str], sep: str = "・") -> str:
    return sep.join(p for p in parts if p)


def _or(parts: list[str]) -> str:
    return "または".join(p for p in parts if p)


# ------------------------------------------------------------------------ the renderer

_VERBS = {"play": "プレイする", "plays": "プレイする", "gain": "獲得する", "gains": "獲得する", "place": "置く",
          "places": "置く", "pay": "支払う", "pays": "支払う", "lose": "失う", "loses": "失う", "draw": "引く",
          "draws": "引く", "score": "得点する", "move": "移す", "moves": "移す", "raise": "上げる",
          "raises": "上げる"}


class JapaneseRenderer(Renderer):
    lang = "ja"

    # ---------------------------------------------------------------- sentences
    def program(self, body) -> str:
        return "".join(self.sentences(self.clauses(body)))

    def sentences(self, clauses: list[Clause]) -> list[str]:
        out: list[str] = []
        run: list[str] = []

        def flush():
            if run:
                out.append(_end(self.chain(run)))
                run.clear()

        for c in clauses:
            if c.simple:
                run.append(c.text)
            else:
                flush()
                out.append(_end(c.text))
        flush()
        return out

    def chain(self, texts: list[str]) -> str:
        return "、".join([conjugate(t, "stem") for t in texts[:-1]] + texts[-1:])

    def join_inline(self, clauses: list[Clause]) -> str:
        parts = []
        for i, c in enumerate(clauses):
            last = i == len(clauses) - 1
            if c.simple:
                parts.append(c.text if last else conjugate(c.text, "stem") + "、")
            else:
                parts.append(c.text if last else _end(c.text))
        return "".join(parts)

    def inline(self, body) -> str:
        return self.join_inline(self.clauses(body))

    def condition(self, e) -> str:
        return _end(self.cond(e))

    def named(self, info: CallInfo) -> str:
        return f"「{info.call}」を行う"

    # ---------------------------------------------------------------- small words
    def up_to(self, n: str) -> str:
        return f"最大{n}"

    def it(self) -> str:
        return "そのカード"

    def this(self) -> str:
        return "このカード"

    def vp(self) -> str:
        return self.lex.term("vp") if "vp" in self.lex.glossary else "VP"

    def ctr(self, name: str | None) -> str:
        return self.lex.counter(name)

    def obj(self, word: str, a: A.Amount, ctr: str) -> str:
        """'土を2個', '土を最大2個', 'そのカードのコストと同じ数の土を', '土をすべて'."""
        if a.kind == "all":
            return f"{word}をすべて"
        c = self.const(a.value) if a.value is not None else None
        if c is not None:
            n = f"{c}{ctr}"
        elif isinstance(a.value, A.VarX) or (isinstance(a.value, A.Name) and a.value.name.startswith("$")):
            n = f"{'X' if isinstance(a.value, A.VarX) else a.value.name}{ctr}"
        else:
            same = f"{self.value(a.value)}と同じ数の{word}を"
            return f"最大で{same}" if a.kind == "up_to" else same
        return f"{word}を{'最大' if a.kind == 'up_to' else ''}{n}"

    def item(self, word: str, a: A.Amount, ctr: str) -> str:
        if a.kind == "all":
            return f"すべての{word}"
        c = self.const(a.value) if a.value is not None else None
        if c is not None:
            return f"{word}{c}{ctr}"
        if isinstance(a.value, A.VarX):
            return f"{word}X{ctr}"
        return f"{self.value(a.value)}と同じ数の{word}"

    def per(self, p: A.Per | None) -> str:
        if p is None:
            return ""
        if isinstance(p.of, A.Query):
            return f"{self.query(p.of)}{p.divisor}枚につき、"
        unit, ctr = self.unit(p.of)
        return f"{unit}{p.divisor}{ctr}につき、"

    # ---------------------------------------------------------------- statements
    def s_Gain(self, s: A.Gain) -> Clause:
        return Clause(f"{self.per(s.per)}{self.obj(self.lex.term(s.resource), s.amount, self.ctr(s.resource))}獲得する")

    def s_Lose(self, s: A.Lose) -> Clause:
        return Clause(f"{self.per(s.per)}{self.obj(self.lex.term(s.resource), s.amount, self.ctr(s.resource))}失う")

    def s_Pay(self, s: A.Pay) -> Clause:
        if len(s.items) == 1:
            a, r = s.items[0]
            return Clause(f"{self.obj(self.lex.term(r), a, self.ctr(r))}支払う")
        return Clause("と".join(self.item(self.lex.term(r), a, self.ctr(r)) for a, r in s.items) + "を支払う")

    def s_SetCounter(self, s: A.SetCounter) -> Clause:
        return Clause(f"{self.named_value(s.name)}を{self.number(s.value)}にする")

    def s_Score(self, s: A.Score) -> Clause:
        vp = self.vp()
        a = s.amount
        if s.per is not None or a.kind != "exact":
            c = self.const(a.value) if a.value is not None else None
            amount = f"{'最大' if a.kind == 'up_to' else ''}{c}{vp}" if c is not None else \
                f"{self.value(a.value)}と同じ数の{vp}" if a.value is not None else f"すべての{vp}"
            return Clause(f"{self.per(s.per)}{amount}を獲得する")
        c = self.const(a.value)
        if c is not None:
            return Clause(f"{c}{vp}を獲得する")
        e = a.value
        if isinstance(e, A.BinOp) and e.op == "*":
            k, rest = (self.const(e.left), e.right) if self.const(e.left) is not None else (self.const(e.right), e.left)
            if k is not None and self.has_unit(rest):
                unit, ctr = self.unit(rest)
                return Clause(f"{unit}1{ctr}につき、{k}{vp}を獲得する")
        if self.has_unit(e) and not isinstance(e, A.Name):
            unit, ctr = self.unit(e)
            return Clause(f"{unit}1{ctr}につき、1{vp}を獲得する")
        return Clause(f"{self.value(e)}と同じ数の{vp}を獲得する")

    def s_May(self, s: A.May) -> Clause:
        inner = self.stmt(s.body)
        if inner.simple:
            return Clause(conjugate(inner.text, "te") + "もよい", simple=False)
        return Clause(f"望むなら、{inner.text}", simple=False)

    def s_Group(self, s: A.Group) -> Clause:
        if s.macro is not None:
            return self.macro(s)
        inner = self.clauses(s.body)
        if len(inner) == 1:
            return inner[0]
        return Clause(self.join_inline(inner), simple=all(c.simple for c in inner))

    def s_Nothing(self, s) -> Clause:
        return Clause("何もしない")

    def verb(self, word: str) -> str:
        return self.lex.glossary.get(word, {}).get("ja") or _VERBS.get(word) or f"{self.lex.term(word)}する"

    def s_Emit(self, s: A.Emit) -> Clause:
        obj = f"{self.lex.term(s.object)}を" if s.object else ""
        return Clause(f"「{obj}{conjugate(self.verb(s.event), 'ta')}とき」の能力が誘発する", simple=False)

    def s_PassFirst(self, s: A.PassFirst) -> Clause:
        return Clause(f"スタートプレイヤーを{self.player(s.to)}に渡す")

    def s_EndGame(self, s) -> Clause:
        return Clause("ゲームを終了する")

    def s_Shuffle(self, s: A.Shuffle) -> Clause:
        return Clause(f"{self.zone(s.zone)}をシャッフルする")

    def s_Modify(self, s: A.Modify) -> Clause:
        n = self.const(s.by)
        stat = self.lex.stat(s.stat)
        q = self.query(s.query)
        if n is None:
            return Clause(f"{q}の{stat}は{self.value(s.by)}だけ変わる", simple=False)
        return Clause(f"{q}の{stat}は{abs(n)}{'少なくなる' if n < 0 else '多くなる'}", simple=False)

    def s_Prevent(self, s: A.Prevent) -> Clause:
        names = _or([self.lex.term(n) for n in s.names])
        who = "対戦相手は" if s.opponents else "誰も"
        where = "このカードから" if s.scope == "this" else "あなたの"
        return Clause(f"{who}{where}{names}を取り除けない", simple=False)

    def s_ActivateTiming(self, s: A.ActivateTiming) -> Clause:
        return Clause(f"自分の{self.lex.term(s.timing)}の能力を発動する")

    def s_ActivateCopy(self, s: A.ActivateCopy) -> Clause:
        t = self.lex.term(s.timing)
        return Clause(f"{self.target(s.target)}の{t}の能力を発動する")

    def s_Mark(self, s: A.Mark) -> Clause:
        flag = self.lex.term(s.flag)
        if s.on:
            return Clause(f"{self.target(s.target)}に{flag}の印を付ける")
        return Clause(f"{self.target(s.target)}から{flag}の印を外す")

    def s_Flip(self, s: A.Flip) -> Clause:
        return Clause(f"{self.target(s.target)}を裏返す")

    def s_Reveal(self, s: A.Reveal) -> Clause:
        return Clause(f"{self.source(s.source)}{self.obj('カード', s.amount, '枚')}公開する")

    def s_ChooseX(self, s: A.ChooseX) -> Clause:
        return Clause(f"{self.number(s.low)}から{self.number(s.high)}までの数Xを選ぶ")

    _FACE: ClassVar[dict[str, str]] = {"down": "裏向きで", "up": "表向きで"}

    def s_Move(self, s: A.Move) -> Clause:
        face = self._FACE.get(s.face or "", "")
        mods = self.modifiers(s.source.filters) if s.source.filters else ""
        card = f"{mods}カード"
        dest = self.dest(s.dest)
        if s.amount.kind == "all":
            return Clause(f"{self.zone_of(s.source)}{card}をすべて{dest}に{face}移す")
        return Clause(f"{self.source(s.source)}{self.obj(card, s.amount, '枚')}、{dest}に{face}移す")

    def s_MoveCard(self, s: A.MoveCard) -> Clause:
        face = self._FACE.get(s.face or "", "")
        return Clause(f"{self.target(s.card)}を{self.dest(s.dest)}に{face}移す")

    def s_Place(self, s: A.Place) -> Clause:
        piece = ("自分の" if s.owned else "") + self.lex.piece(s.piece)
        return Clause(f"{self.target(s.target)}に{self.obj(piece, s.amount, self.ctr(s.piece))}置く")

    def s_Remove(self, s: A.Remove) -> Clause:
        piece = self.lex.piece(s.piece)
        return Clause(f"{self.target(s.target)}から{self.obj(piece, s.amount, self.ctr(s.piece))}取り除く")

    def s_Costed(self, s: A.Costed) -> Clause:
        cost = self.stmt(s.cost).text
        return Clause(f"{cost}ことで、{self.inline(s.body)}", simple=False)

    def s_If(self, s: A.If) -> Clause:
        text = f"{self.cond(s.cond)}場合、{self.inline(s.then)}"
        if s.otherwise:
            text += f"。そうでない場合、{self.inline(s.otherwise)}"
        return Clause(text, simple=False)

    def s_Scoped(self, s: A.Scoped) -> Clause:
        p = s.players
        start = f"{self.player(p.start)}から順に、" if p.start is not None else ""
        who = {"each": "各プレイヤー", "turns": "各プレイヤー", "each_other": "他の各プレイヤー",
               "chosen": "選んだプレイヤー1人"}.get(p.kind) or self.player(p.ref)
        if p.kind == "turns" and not start:
            start = "手番順に、"
        return Clause(f"{who}は、{start}{self.inline(s.body)}", simple=False)

    def s_ForEach(self, s: A.ForEach) -> Clause:
        order = "右から左の順に" if s.reverse else ""
        return Clause(f"{self.query(s.query)}それぞれについて、{order}{self.inline(s.body)}", simple=False)

    def s_Repeat(self, s: A.Repeat) -> Clause:
        body = self.inline(s.body)
        if s.kind == "times" and self.const(s.value) == 1:
            return self.s_Group(A.Group(s.body))
        n = self.number(s.value)
        if not (n.isdigit() or n.startswith("$") or n == "X"):
            n = f"（{n}）" if not n.startswith("（") or not n.endswith("）") else n
        if s.kind == "times":
            return Clause(f"次を{n}回行う：{body}", simple=False)
        if s.kind == "up_to":
            return Clause(f"次を最大{n}回行う：{body}", simple=False)
        if s.kind == "until":
            return Clause(f"{self.cond(s.value)}状態になるまで、次を繰り返す：{body}", simple=False)
        return Clause(f"{self.cond(s.value)}間、次を繰り返す：{body}", simple=False)

    def s_ChooseOne(self, s: A.ChooseOne) -> Clause:
        return Clause("次のうち1つを選ぶ：" + "／".join(self.inline(o) for o in s.options), simple=False)

    def s_ChooseCard(self, s: A.ChooseCard) -> Clause:
        return Clause(f"{self.query(s.query)}を1枚選び、{self.inline(s.body)}", simple=False)

    def s_Trigger(self, s: A.Trigger) -> Clause:
        subject = {"you": "自分", "any": "いずれかのプレイヤー", "opponent": "対戦相手"}.get(s.subject, s.subject)
        verb = self.verb(s.verb)
        if isinstance(s.object, A.Query):
            obj = f"{self.query(s.object)}を"
        elif isinstance(s.object, str):
            obj = f"{self.lex.term(s.object)}を"
        else:
            obj = ""
        return Clause(f"{subject}が{obj}{conjugate(verb, 'ta')}とき、{self.inline(s.body)}", simple=False)

    def s_Call(self, s: A.Call) -> Clause:
        return Clause(f"「{s.name}」を行う")

    # ---------------------------------------------------------------- cards and places
    def target(self, t, many: bool = False) -> str:
        if isinstance(t, A.It):
            return "そのカード"
        if isinstance(t, A.This):
            return "このカード"
        if isinstance(t, A.Param):
            return f"${t.name}"
        if isinstance(t, A.EachOf):
            return f"{self.query(t.query)}それぞれ"
        if isinstance(t, A.AnyOf):
            return self.query(t.query)
        return self.fallback(t)

    _OWNER: ClassVar[dict[str, str]] = {
        "you": "自分の", "active": "手番プレイヤーの", "left": "左隣のプレイヤーの", "right": "右隣のプレイヤーの",
              "first": "スタートプレイヤーの", "others": "各対戦相手の", "all": "全プレイヤーの"}

    def owner(self, ref, zone: str) -> str:
        if ref is None:
            return "自分の" if self.lex.zone_owner(zone) == "player" else ""
        return self._OWNER.get(ref.kind, "")

    def zone(self, z: A.ZoneRef) -> str:
        return self.owner(z.player, z.name) + self.lex.term(z.name)

    def zones(self, zs) -> str:
        first = zs[0]
        if all(z.player == first.player and self.lex.zone_owner(z.name) == self.lex.zone_owner(first.name)
               for z in zs):
            return self.owner(first.player, first.name) + _list([self.lex.term(z.name) for z in zs])
        return _list([self.zone(z) for z in zs])

    def zone_of(self, s: A.Source) -> str:
        end = {"top": "の上", "bottom": "の下"}.get(s.end or "", "")
        return f"{self.zone(s.zone)}{end}の"

    def source(self, s: A.Source) -> str:
        end = {"top": "の上", "bottom": "の下"}.get(s.end or "", "")
        return f"{self.zone(s.zone)}{end}から"

    def dest(self, d: A.Dest) -> str:
        end = {"top": "の上", "bottom": "の下"}.get(d.end or "", "")
        if d.cell is not None:
            return f"{self.zone(d.zone)}の{self.number(d.cell.row)}行目{self.number(d.cell.column)}列目のマス"
        return f"{self.zone(d.zone)}{end}"

    def modifier(self, f) -> str:
        """A card filter as the words before 'カード': '湿地の', 'コストが4以上の', '樹冠のある'."""
        if isinstance(f, A.TraitIs) and f.trait == "type":
            return _or([self.lex.term(v) for v in f.values])  # '植物または地形' + 'カード'
        if isinstance(f, A.TraitIs):
            return _or([self.lex.term(v) for v in f.values]) + "の"
        if isinstance(f, A.Has):
            if self.lex.is_type(f.name):
                return self.lex.term(f.name)
            if self.lex.is_piece(f.name) and not self.lex.is_flag(f.name):
                return f"{self.lex.piece(f.name)}の置かれた"
            return f"{self.lex.term(f.name)}のある"
        if isinstance(f, A.HasNo):
            if self.lex.is_piece(f.name) and not self.lex.is_flag(f.name):
                return f"{self.lex.piece(f.name)}の置かれていない"
            return f"{self.lex.term(f.name)}のない"
        if isinstance(f, A.HasAbility):
            return f"{self.lex.term(f.timing)}の能力を持つ"
        if isinstance(f, A.StatCmp):
            return f"{self.lex.stat(f.stat)}が{self.compare_tail(f.op, f.value)}の"
        if isinstance(f, A.FilterNot):
            inner = self.modifier(f.inner)
            return (inner[:-1] if inner.endswith("の") else inner) + "ではない"
        if isinstance(f, A.NotThis):
            return "このカード以外の"
        return self.fallback(f)

    def modifiers(self, filters) -> str:
        """Japanese puts the card type next to 'カード' and conditions first: 'コストが4以上の木の植物カード'."""

        def rank(f):
            if isinstance(f, A.NotThis):
                return 0
            if (isinstance(f, A.TraitIs) and f.trait == "type") or (isinstance(f, A.Has) and self.lex.is_type(f.name)):
                return 3
            return 2 if isinstance(f, A.TraitIs) else 1

        return "".join(self.modifier(f) for f in sorted(filters, key=rank))

    def query(self, q: A.Query, plural: bool = True, article: bool = False, place: str = "の") -> str:
        """'自分の場の湿地のカード'; with place='に': '自分の場に湿地のカード' (for 'there are ...')."""
        zones = self.zones(q.zones) + place if q.zones else ""
        if zones and place == "の" and any(isinstance(f, A.NotThis) for f in q.filters):
            zones += "、"
        text = zones + self.modifiers(q.filters) + "カード"
        where = getattr(q, "where", None)
        if where is not None:
            text += f"のうち、{self.cond(where)}もの"
        return text

    def player(self, ref) -> str:
        if ref is None:
            return "自分"
        return {"you": "自分", "active": "手番プレイヤー", "left": "左隣のプレイヤー", "right": "右隣のプレイヤー",
                "first": "スタートプレイヤー", "others": "各対戦相手", "all": "全プレイヤー"}.get(ref.kind, ref.kind)

    # ---------------------------------------------------------------- expressions
    def named_value(self, name: str) -> str:
        if self.lex.is_resource(name):
            return f"自分の{self.lex.term(name)}"
        return self.lex.term(name)

    def e_Num(self, e: A.Num) -> str:
        return str(e.value)

    def e_Bool(self, e: A.Bool) -> str:
        return "常に" if e.value else "決してない"

    def e_VarX(self, e) -> str:
        return "X"

    def e_Name(self, e: A.Name) -> str:
        v = self.lex.param(e.name)
        if isinstance(v, int) and not isinstance(v, bool):
            return str(v)
        if isinstance(v, list):
            return f"{self.lex.term(e.name)}（{'・'.join(map(str, v))}）"
        if e.name == "player-count":
            return "プレイヤー人数"
        if self.lex.is_resource(e.name):
            return f"自分の{self.lex.term(e.name)}の数"
        return self.lex.term(e.name)

    def e_Param(self, e: A.Param) -> str:
        return f"${e.name}"

    def e_It(self, e) -> str:
        return "そのカード"

    def e_This(self, e) -> str:
        return "このカード"

    def e_Attr(self, e: A.Attr) -> str:
        ref = e.ref
        if isinstance(ref, A.PlayerRef):
            if ref.kind == "you":
                return self.e_Name(A.Name(e.name))
            return f"{self.player(ref)}の{self.lex.term(e.name)}の数"
        owner = "このカードの" if isinstance(ref, A.This) else "そのカードの"
        if self.lex.timing_kind(e.name) == "condition":
            return f"{owner}{self.lex.term(e.name)}を達成している"
        if e.name == "requires":
            return f"{owner}条件を満たしている"
        if e.name in ("row", "column", "position"):
            return owner + {"row": "行", "column": "列", "position": "位置"}[e.name]
        if self.lex.is_piece(e.name):
            return f"{owner}上の{self.lex.piece(e.name)}の数"
        return f"{owner}{self.lex.stat(e.name)}"

    def e_Pieces(self, e: A.Pieces) -> str:
        ref = "このカード" if isinstance(e.ref, A.This) else "そのカード"
        return f"{ref}の上の{'自分の' if e.owned else ''}{self.lex.piece(e.piece)}の数"

    def e_Count(self, e: A.Count) -> str:
        return f"{self.query(e.query)}の枚数"

    def e_SumOf(self, e: A.SumOf) -> str:
        if self.lex.is_piece(e.name):
            return f"{self.query(e.query)}の上の{self.lex.piece(e.name)}の合計"
        return f"{self.query(e.query)}の{self.lex.stat(e.name)}の合計"

    def e_Func(self, e: A.Func) -> str:
        f = getattr(self, "f_" + e.name, None)
        if f is None:
            return self.fallback(e)
        return f(e.args)

    def arg(self, a) -> str:
        if isinstance(a, A.Query):
            return self.query(a)
        if isinstance(a, A.TraitIs):
            return _or([self.lex.term(v) for v in a.values])
        if isinstance(a, A.Name) and not self.lex.param(a.name):
            return self.lex.term(a.name)
        return self.value(a)

    def f_min(self, args) -> str:
        return "、".join(self.value(a) for a in args) + "のうち最も小さい値"

    def f_max(self, args) -> str:
        return "、".join(self.value(a) for a in args) + "のうち最も大きい値"

    def f_abs(self, args) -> str:
        return f"{self.value(args[0])}の絶対値"

    def f_nth(self, args) -> str:
        lst, idx = args
        values = self.lex.param(lst.name) if isinstance(lst, A.Name) else None
        shown = f"{self.lex.term(lst.name)}（{'・'.join(map(str, values))}）" if values else self.value(lst)
        if isinstance(idx, A.BinOp) and idx.op == "-" and self.const(idx.right) == 1:
            return f"{shown}の「{self.value(idx.left)}」番目の値"
        c = self.const(idx)
        if c is not None:
            return f"{shown}の{c + 1}番目の値"
        return f"{shown}の「{self.value(idx)}＋1」番目の値"

    def f_sets(self, args) -> str:
        slots = _list([self.arg(s) for s in args[1:]])
        return f"{self.arg(args[0])}で作れる、{slots}を1枚ずつそろえた組の数"

    def f_path(self, args) -> str:
        return f"{self.value(args[1])}を通って{self.arg(args[0])}が縦横につながる最長の列の枚数"

    def f_rows(self, args) -> str:
        return f"{self.arg(args[0])}だけで埋まった横列の数"

    def f_columns(self, args) -> str:
        return f"{self.arg(args[0])}だけで埋まった縦列の数"

    def f_neighbours(self, args) -> str:
        return f"{self.value(args[1])}に隣接する{self.arg(args[0])}の枚数"

    def f_distinct(self, args) -> str:
        return f"{self.arg(args[0])}のうち異なるカードの数"

    def f_occurrences(self, args) -> str:
        return f"{self.arg(args[0])}にある{self.arg(args[1])}の数"

    def e_CardIs(self, e: A.CardIs) -> str:
        who = "このカード" if isinstance(e.ref, A.This) else "そのカード"
        return f"{who}が{self.modifier(e.filter)}カードである"

    _ARITH: ClassVar[dict[str, str]] = {"+": "＋", "-": "−", "*": "×", "/": "÷"}

    def e_BinOp(self, e: A.BinOp) -> str:
        if e.op in COMPARISONS or e.op in ("and", "or"):
            return self.cond(e)
        c = self.const(e)
        if c is not None:
            return str(c)
        left, right = self.operand(e.left), self.operand(e.right)
        if e.op == "%":
            return f"{left}を{right}で割った余り"
        text = f"{left}{self._ARITH.get(e.op, e.op)}{right}"
        if e.op == "/":
            text += "（端数切り捨て）"
        return text

    def operand(self, e) -> str:
        text = self.value(e)
        return text if text.lstrip("-").isdigit() or text in ("X",) else f"（{text}）"

    def e_Not(self, e: A.Not) -> str:
        return self.cond(e)

    def e_Neg(self, e: A.Neg) -> str:
        c = self.const(e)
        return str(c) if c is not None else f"−{self.operand(e.operand)}"

    # units: (what is counted, its counter word), for 'per' and 'につき'
    def has_unit(self, e) -> bool:
        if isinstance(e, A.Count | A.Pieces):
            return True
        if isinstance(e, A.SumOf):
            return self.lex.is_piece(e.name)
        if isinstance(e, A.Name):
            return self.lex.is_resource(e.name) or self.lex.is_counter(e.name)
        if isinstance(e, A.Func):
            return e.name in ("path", "rows", "columns", "neighbours", "sets", "distinct", "occurrences")
        return False

    def unit(self, e) -> tuple[str, str]:
        if isinstance(e, A.Count):
            return self.query(e.query), "枚"
        if isinstance(e, A.SumOf) and self.lex.is_piece(e.name):
            return f"{self.query(e.query)}の上の{self.lex.piece(e.name)}", self.ctr(e.name)
        if isinstance(e, A.Pieces):
            ref = "このカード" if isinstance(e.ref, A.This) else "そのカード"
            return f"{ref}の上の{'自分の' if e.owned else ''}{self.lex.piece(e.piece)}", self.ctr(e.piece)
        if isinstance(e, A.Name):
            return self.named_value(e.name), self.ctr(e.name)
        if isinstance(e, A.Func):
            a = e.args
            if e.name == "path":
                return f"{self.value(a[1])}を通って{self.arg(a[0])}が縦横につながる最長の列のカード", "枚"
            if e.name == "rows":
                return f"{self.arg(a[0])}だけで埋まった横列", "列"
            if e.name == "columns":
                return f"{self.arg(a[0])}だけで埋まった縦列", "列"
            if e.name == "neighbours":
                return f"{self.value(a[1])}に隣接する{self.arg(a[0])}", "枚"
            if e.name == "sets":
                return f"{self.arg(a[0])}で作れる、{_list([self.arg(s) for s in a[1:]])}を1枚ずつそろえた組", "組"
            if e.name == "distinct":
                return f"{self.arg(a[0])}のうち異なるカード", "枚"
            if e.name == "occurrences":
                return f"{self.arg(a[0])}にある{self.arg(a[1])}", "個"
        return f"（{self.value(e)}）", ""

    # conditions
    def compare_tail(self, op: str, rhs) -> str:
        c = self.const(rhs)
        r = str(c) if c is not None else self.value(rhs)
        return {">=": f"{r}以上", "<=": f"{r}以下", ">": f"{r}より大きい値", "<": f"{r}未満",
                "=": f"{r}", "!=": f"{r}以外"}[op]

    def cond(self, e) -> str:
        if isinstance(e, A.BinOp) and e.op == "and":
            return f"{self.cond(e.left)}、かつ{self.cond(e.right)}"
        if isinstance(e, A.BinOp) and e.op == "or":
            return f"{self.cond(e.left)}、または{self.cond(e.right)}"
        if isinstance(e, A.Not):
            inner = e.operand
            if isinstance(inner, A.BinOp) and inner.op in COMPARISONS:
                flipped = {">=": "<", "<=": ">", ">": "<=", "<": ">=", "=": "!=", "!=": "="}[inner.op]
                return self.cond(A.BinOp(flipped, inner.left, inner.right))
            return f"「{self.cond(inner)}」ではない"
        if isinstance(e, A.BinOp) and e.op in COMPARISONS:
            return self.compare(e)
        if isinstance(e, A.Bool):
            return "常に成り立つ" if e.value else "決して成り立たない"
        if isinstance(e, A.Attr | A.CardIs):
            return self.value(e)
        return f"{self.value(e)}が0ではない"

    def compare(self, e: A.BinOp) -> str:
        left, op, right = e.left, e.op, e.right
        if self.const(left) is not None and self.const(right) is None:
            left, right = right, left
            op = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "=": "=", "!=": "!="}[op]
        c = self.const(right)
        if op == ">" and c == 0:
            op, c = ">=", 1
        r = str(c) if c is not None else self.value(right)
        if self.is_param(left):  # a rule option: name it, do not fold it
            return f"{self.lex.term(left.name)}が" + {">=": f"{r}以上である", "<=": f"{r}以下である",
                                                      ">": f"{r}より大きい", "<": f"{r}未満である",
                                                      "=": f"{r}である", "!=": f"{r}ではない"}[op]
        if isinstance(left, A.Count) and c is not None:
            q = self.query(left.query, place="に")
            if op == "=":
                return f"{q}がない" if c == 0 else f"{q}がちょうど{r}枚ある"
            return f"{q}が" + {">=": f"{r}枚以上ある", "<=": f"{r}枚以下である", ">": f"{r}枚より多くある",
                               "<": f"{r}枚未満である", "!=": f"{r}枚ではない"}[op]
        if isinstance(left, A.Name) and self.lex.is_resource(left.name) and c is not None:
            res, ctr = self.lex.term(left.name), self.ctr(left.name)
            if op == "=":
                return f"{res}を持っていない" if c == 0 else f"{res}がちょうど{r}{ctr}である"
            return {">=": f"{res}を{r}{ctr}以上持っている", "<=": f"{res}が{r}{ctr}以下である",
                    ">": f"{res}を{r}{ctr}より多く持っている", "<": f"{res}が{r}{ctr}未満である",
                    "!=": f"{res}が{r}{ctr}ではない"}[op]
        if self.has_unit(left) and not isinstance(left, A.Name | A.Count) and c is not None:
            unit, ctr = self.unit(left)
            if op == "=":
                return f"{unit}がない" if c == 0 else f"{unit}がちょうど{r}{ctr}ある"
            return f"{unit}が" + {">=": f"{r}{ctr}以上ある", "<=": f"{r}{ctr}以下である", ">": f"{r}{ctr}より多くある",
                                  "<": f"{r}{ctr}未満である", "!=": f"{r}{ctr}ではない"}[op]
        lhs = self.value(left)
        return f"{lhs}が" + {">=": f"{r}以上である", "<=": f"{r}以下である", ">": f"{r}より大きい",
                             "<": f"{r}未満である", "=": f"{r}である", "!=": f"{r}ではない"}[op]


def _end(text: str) -> str:
    text = text.strip()
    return text if text.endswith(("。", "」", "！")) else text + "。"
