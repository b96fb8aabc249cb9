"""``.. cardsmith-schema:: NAME``: every property of a JSON Schema in ``compiler/schemas/``.

Each property is listed with its type, whether it is required, its name pattern in words and
its description, nested as deep as the schema goes; the schema file is a build dependency.
"""

from __future__ import annotations

import json
from pathlib import Path

from cardsmith_examples import _para, _text_nodes
from docutils import nodes
from docutils.parsers.rst import Directive


class _Schema:
    def __init__(self, root: dict) -> None:
        self.root = root

    def resolve(self, s: dict) -> dict:
        seen = 0
        while "$ref" in s and seen < 20:
            ref = s["$ref"].split("#", 1)[-1]  # "#/$defs/x" or "<$id>#/$defs/x"
            target = self.root
            for part in ref.strip("/").split("/"):
                target = target[part]
            merged = {**target, **{k: v for k, v in s.items() if k != "$ref"}}
            s = merged
            seen += 1
        return s

    def summary(self, s: dict) -> str:
        s = self.resolve(s)
        if "enum" in s:
            return "one of " + ", ".join(json.dumps(v) for v in s["enum"])
        if "oneOf" in s or "anyOf" in s:
            return " or ".join(self.summary(x) for x in s.get("oneOf") or s.get("anyOf"))
        t = s.get("type")
        if isinstance(t, list):
            base = " or ".join(t)
        else:
            base = t or "any value"
        if t == "array":
            base = "list of " + (self.summary(s["items"]) if "items" in s else "values")
        elif t == "object" or (t is None and ("properties" in s or "additionalProperties" in s)):
            ap = s.get("additionalProperties")
            if s.get("properties"):
                base = "mapping"
            elif isinstance(ap, dict):
                ap_r = self.resolve(ap)
                inner = "mapping" if ap_r.get("properties") else self.summary(ap)
                key = "name" if "propertyNames" in s else "key"
                base = f"mapping of {key} → {inner}"
            else:
                base = "mapping"
        extras = []
        if "minimum" in s and "maximum" in s:
            extras.append(f"{s['minimum']} to {s['maximum']}")
        elif "minimum" in s:
            extras.append(f"at least {s['minimum']}")
        elif "maximum" in s:
            extras.append(f"at most {s['maximum']}")
        if s.get("minLength") == 1:
            extras.append("not empty")
        return base + (f" ({', '.join(extras)})" if extras else "")

    def children(self, s: dict) -> tuple[dict, list[str]]:
        """The properties to list under a value (its own, or those of its items / entries)."""
        s = self.resolve(s)
        if s.get("type") == "array" and "items" in s:
            return self.children(s["items"])
        if s.get("properties"):
            return s["properties"], s.get("required", [])
        ap = s.get("additionalProperties")
        if isinstance(ap, dict):
            return self.children(ap)
        for alt in s.get("oneOf") or s.get("anyOf") or []:
            props, req = self.children(alt)
            if props:
                return props, req
        return {}, []

    def pattern(self, s: dict) -> str | None:
        s = self.resolve(s)
        if "pattern" in s:
            return s["pattern"]
        if s.get("type") == "array" and "items" in s:
            return self.pattern(s["items"])
        return None

    def key_pattern(self, s: dict) -> str | None:
        s = self.resolve(s)
        pn = s.get("propertyNames")
        return self.resolve(pn).get("pattern") if isinstance(pn, dict) else None


_PATTERN_WORDS = {
    "^[a-z][a-z0-9]*(-[a-z0-9]+)*$": "kebab-case name",
    "^[a-z0-9]+(-[a-z0-9]+)*$": "kebab-case id",
    "^\\d+\\.\\d+\\.\\d+([-+][0-9A-Za-z.-]+)?$": "semantic version (1.2.0, 1.2.0-beta)",
}


def _schema_list(sch: _Schema, props: dict, required: list[str], depth: int) -> nodes.bullet_list:
    bl = nodes.bullet_list(classes=["cardsmith-schema"])
    for name, raw in props.items():
        s = sch.resolve(raw)
        item = nodes.list_item()
        p = nodes.paragraph()
        p += nodes.literal(name, name)
        p += nodes.Text(" — ")
        p += nodes.emphasis(sch.summary(raw), sch.summary(raw))
        if name in required:
            p += nodes.Text(", ")
            p += nodes.strong("required", "required")
        pat = sch.pattern(raw)
        each = "each a " if s.get("type") == "array" else ""
        if pat in _PATTERN_WORDS:
            p += nodes.Text(f", {each}{_PATTERN_WORDS[pat]}")
        elif pat:
            p += nodes.Text(", matching ")
            p += nodes.literal(pat, pat)
        kp = sch.key_pattern(raw)
        if kp in _PATTERN_WORDS:
            p += nodes.Text(f", keys: {_PATTERN_WORDS[kp]}s")
        elif kp:
            p += nodes.Text(", keys matching ")
            p += nodes.literal(kp, kp)
        desc = s.get("description")
        if desc:
            p += nodes.Text(". ")
            p.extend(_text_nodes(desc))
        item += p
        sub, sub_req = sch.children(raw)
        if sub and depth < 6:
            item += _schema_list(sch, sub, sub_req, depth + 1)
        bl += item
    return bl


class SchemaDirective(Directive):
    required_arguments = 1
    has_content = False

    def run(self):
        from cardsmith.compiler.schema import SCHEMA_DIR, SCHEMA_NAMES

        name = self.arguments[0]
        if name not in SCHEMA_NAMES:
            raise self.error(f"no schema '{name}'; schemas: {', '.join(SCHEMA_NAMES)}")
        env = self.state.document.settings.env
        path = Path(SCHEMA_DIR) / f"{name}.schema.json"
        env.note_dependency(str(path))
        # read the file itself: the compiler's cached copy may have been rewritten by a validator
        root = json.loads(path.read_text(encoding="utf-8"))
        sch = _Schema(root)
        out: list[nodes.Node] = []
        if root.get("description"):
            out.append(_para(_text_nodes(root["description"])))
        props, req = sch.children(root)
        extra = " Fields not listed here are an error (E011)." if root.get("additionalProperties") is False else ""
        out.append(_para("Top-level fields of ", nodes.literal(f"{name}.schema.json", f"{name}.schema.json"),
                         "." + extra))
        out.append(_schema_list(sch, props, req, 0))
        return out


def setup(app):
    app.add_directive("cardsmith-schema", SchemaDirective)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
