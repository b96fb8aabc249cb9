"""JSON Schema validation of loaded YAML, with errors at the right line and column.

The schemas in `schemas/` are the single source of truth: validation uses them,
`cardsmith schema` prints them, and editors read them through the modeline.

They are written in JSON Schema draft 2019-09: the newest draft that jsonschema, the fast validator
(fastjsonschema) and yaml-language-server all implement, so the three read every schema alike.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import fastjsonschema
import jsonschema
from jsonschema.protocols import Validator

from .diagnostics import Diagnostics, did_you_mean
from .yamlsrc import YamlDoc

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
SCHEMA_NAMES = ("pack", "rules", "cards", "scenario")


@cache
def schema(name: str) -> dict:
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


@cache
def validator(name: str) -> Validator:
    """The jsonschema validator of the draft the schema declares in `$schema`."""
    s = schema(name)
    return jsonschema.validators.validator_for(s)(s)


@cache
def fast_check(name: str):
    """A compiled validator for the common case of a valid document (several times faster);
    jsonschema then explains the errors of an invalid one, with every error found."""
    import copy

    return fastjsonschema.compile(copy.deepcopy(schema(name)))  # it rewrites $refs in place


_JSON_WORDS = {"object": "a mapping", "array": "a list", "string": "text", "integer": "a whole number",
               "number": "a number", "boolean": "true or false", "null": "empty"}


def _type_word(v) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", int: "a number", float: "a number",
            bool: "true/false", type(None): "nothing"}.get(type(v), type(v).__name__)


def validate(doc: YamlDoc, name: str, diags: Diagnostics) -> bool:
    """Validate `doc` against schema `name`; one diagnostic per problem found."""
    try:
        fast_check(name)(doc.value)
        return True
    except fastjsonschema.JsonSchemaException:
        pass
    ok = True
    errors = sorted(validator(name).iter_errors(doc.value), key=lambda e: list(map(str, e.absolute_path)))
    for err in errors:
        ok = False
        _report(doc, err, diags)
    return ok


def _deepest(err: jsonschema.ValidationError) -> jsonschema.ValidationError:
    # For oneOf/anyOf, the most specific sub-error explains more than "is not valid under any".
    if err.context:
        # a branch whose type the value has explains it (a number too large, not "should be a mapping")
        # (not for a float: jsonschema counts inf as an integer, and "should be a whole number" says more)
        typed = [e for e in err.context if e.validator != "type"] if not isinstance(err.instance, float) else []
        best = jsonschema.exceptions.best_match(typed or err.context)
        if best is not None:
            return best
    return err


def _report(doc: YamlDoc, err: jsonschema.ValidationError, diags: Diagnostics) -> None:
    path = tuple(err.absolute_path)
    where = ".".join(str(p) for p in path) or "the document"
    v = err.validator
    if v == "additionalProperties":
        allowed = list(err.schema.get("properties", {}))
        extras = [k for k in err.instance if k not in allowed] if isinstance(err.instance, dict) else []
        for key in extras:
            diags.error("E011", f"unknown field '{key}' in {where}", doc.key_span((*path, key)),
                        hint=did_you_mean(key, allowed) or f"allowed fields: {', '.join(allowed)}")
        return
    if v == "required":
        missing = [k for k in err.validator_value if isinstance(err.instance, dict) and k not in err.instance]
        for key in missing:
            diags.error("E010", f"missing required field '{key}' in {where}", doc.span(path))
        return
    if v == "propertyNames":
        bad = err.instance
        diags.error("E013", f"name {bad!r} in {where} must be lowercase kebab-case", doc.key_span((*path, bad)),
                    hint="use lowercase letters, digits and single hyphens, e.g. 'coin-income'")
        return
    if v == "type":
        expected = err.validator_value
        expected = [expected] if isinstance(expected, str) else expected
        words = " or ".join(_JSON_WORDS.get(t, t) for t in expected)
        got = _type_word(err.instance)
        if isinstance(err.instance, float):
            got = f"{err.instance:g}"
        hint = None
        if isinstance(err.instance, bool) and "string" in expected:
            hint = "YAML reads yes/no/on/off/true/false as true or false: quote the word, e.g. 'no'"
        elif err.instance is None and "string" in expected:
            hint = "an empty value is nothing: write the text, or quote it"
        diags.error("E012", f"{where} should be {words}, not {got}", doc.span(path), hint=hint)
        return
    if v in ("oneOf", "anyOf"):
        inner = _deepest(err)
        if inner is not err:
            _report(doc, inner, diags)
            return
    if v == "enum":
        diags.error("E013", f"{where} must be one of {', '.join(map(str, err.validator_value))}, "
                    f"not {err.instance!r}", doc.span(path),
                    hint=did_you_mean(str(err.instance), map(str, err.validator_value)))
        return
    if v == "pattern" and "propertyNames" in err.schema_path:
        bad = err.instance
        diags.error("E013", f"name {bad!r} in {where} must be lowercase kebab-case", doc.key_span((*path, bad)),
                    hint="use lowercase letters, digits and single hyphens, e.g. 'coin-income'")
        return
    if v == "pattern":
        is_version = bool(path) and path[-1] == "version"
        diags.error("E013", f"{where} {err.instance!r} has the wrong form", doc.span(path),
                    hint="versions look like 1.2.0" if is_version
                    else "ids and names are lowercase kebab-case, e.g. 'golden-apple'")
        return
    diags.error("E013", f"{where}: {err.message}", doc.span(path))
