"""The TextMate injection grammar of the VS Code extension (editors/vscode/syntaxes/), made from the effect
grammar so that it follows it: the words that begin a statement, the clause words, numbers, $parameters and
signs, coloured inside YAML strings before the server's semantic tokens arrive.

    python -m cardsmith.lsp.textmate > editors/vscode/syntaxes/cardsmith-effect.injection.json
"""

from __future__ import annotations

import json
import re

from cardsmith.compiler.parse import keywords

# Words inside statements that give a text its shape (the grammar's own literals); the rest of its small
# words (a, of, to, in) would colour every card name too.
CLAUSE_WORDS = ("then", "else", "per", "with", "where", "times", "until", "while", "or", "and", "not", "from")
# Statement-opening words that are also everyday words of card names ('Lake of the Woods', 'Life in Space').
SMALL_WORDS = frozenset({"a", "you", "left", "right", "first", "active", "the", "in"})
STRINGS = ("string.quoted.double.yaml", "string.quoted.single.yaml", "string.unquoted.plain.out.yaml",
           "string.unquoted.plain.in.yaml", "string.unquoted.block.yaml")


def grammar() -> dict:
    words = sorted((set(keywords()) | set(CLAUSE_WORDS)) - SMALL_WORDS)
    return {
        "scopeName": "cardsmith.effect.injection",
        "injectionSelector": ", ".join(f"L:{s}" for s in STRINGS),
        "patterns": [{"include": f"#{k}"} for k in ("keyword", "number", "parameter", "operator", "separator")],
        "repository": {
            "keyword": {"match": r"(?<![\w$-])(?:" + "|".join(map(re.escape, words)) + r")(?![\w-])",
                        "name": "keyword.control.cardsmith"},
            "number": {"match": r"(?<![\w-])\d+(?![\w-])", "name": "constant.numeric.cardsmith"},
            "parameter": {"match": r"\$[a-z][a-z0-9]*(?:-[a-z0-9]+)*", "name": "variable.parameter.cardsmith"},
            "operator": {"match": r">=|<=|!=|=|>|<|\+|\*|/|%", "name": "keyword.operator.cardsmith"},
            "separator": {"match": r"[;|]|,(?=\s)|:(?=\s|$)", "name": "punctuation.separator.cardsmith"},
        },
    }


def text() -> str:
    return json.dumps(grammar(), indent=2) + "\n"


if __name__ == "__main__":
    print(text(), end="")
