"""Japanese, in plain rulebook style (だ・である調, as in the rule documents the project started from).

Each statement is a clause ending in a verb in dictionary form ('土を2個獲得する'); clauses in a row join
with the verb's continuative form ('土を2個獲得し、カードを1枚引く。'). The words and sentence shapes
are in lang/ja.yaml; this is the morphology its templates use: verb conjugation, how sentences end and
clauses chain, and the counter words of amounts (the glossary's ja-counter, else the data's default).
"""

from __future__ import annotations

import re

from .text_ir import Clause, Phrase, Word
from .text_realise import Realiser

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


def end_sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith(("。", "」", "！")) else text + "。"


class JapaneseRealiser(Realiser):
    code = "ja"

    def sentence(self, text: str) -> str:
        return end_sentence(text)

    def run(self, texts: list[str]) -> str:
        return "、".join([conjugate(t, "stem") for t in texts[:-1]] + texts[-1:])

    def inline(self, clauses: list[Clause]) -> str:
        """A clause that joins continues in its stem form ('…し、'); any other ends its own sentence."""
        parts = []
        for i, c in enumerate(clauses):
            text = self.text(c)
            if i == len(clauses) - 1:
                parts.append(text)
            else:
                parts.append(conjugate(text, "stem") + "、" if c.joins else end_sentence(text))
        return "".join(parts)

    def glossary_phrase(self, text: str, args: dict) -> str:
        """A macro's phrase with its arguments; '[$what]' is the counter word of a word argument ('鋼鉄を最大$n[$what]'
        -> '鋼鉄を最大2個', 'M€を最大3')."""
        for name, arg in args.items():
            if isinstance(arg, Word):
                text = text.replace(f"[${name}]", self.counter(arg))
        return super().glossary_phrase(text, args)

    def fit_amount(self, text: str, slot: str, arg: Phrase) -> str:
        """'カードを$n枚引く' with a count: '…1つにつき、カードを1枚引く'; with a value: '…と同じ枚数引く'."""
        if arg.key == "call-per":
            return self.text(arg.slots["per"]) + text.replace(slot, arg.slots["k"])
        value = self.text(arg.slots["value"])
        m = re.search(re.escape(slot) + "(枚|個|段階|回|点)", text)
        if m is None:
            return text.replace(slot, f"（{value}）")
        return f"{text[:m.start()]}{value}と同じ{m[1]}数{text[m.end():]}"

    # template filters
    def f_stem(self, text: str, raw) -> str:
        return conjugate(text, "stem")

    def f_te(self, text: str, raw) -> str:
        return conjugate(text, "te")

    def f_ta(self, text: str, raw) -> str:
        return conjugate(text, "ta")

    def f_negate(self, text: str, raw) -> str:
        """A card modifier negated: '湿地の' -> '湿地ではない'."""
        return (text[:-1] if text.endswith("の") else text) + "ではない"

    def f_count(self, text: str, raw) -> str:
        """A number of times: bracketed unless a number, X or a $parameter ('（…）回')."""
        if text.isdigit() or text.startswith("$") or text == "X" or (text.startswith("（") and text.endswith("）")):
            return text
        return f"（{text}）"

    def f_operand(self, text: str, raw) -> str:
        """An operand of arithmetic: bracketed unless a number, X or one word (a rule option: 難易度−1)."""
        return text if text.lstrip("-").isdigit() or text == "X" or isinstance(raw, Word) else f"（{text}）"

    def f_tally(self, text: str, raw) -> str:
        """How many, from a counter word: '枚' -> '枚数' (カードの枚数), any other -> '数' (マスの数)."""
        return "枚数" if text == "枚" else "数"

    def f_first(self, text, raw) -> str:
        """The first of a list ('{names@counter|first}': one counter word for several things)."""
        return text[0] if isinstance(text, list) and text else text
