"""Pack templates render in a sandbox: a template from a stranger cannot run Python, read files or write
them. Each payload below is refused with a located diagnostic (E030 at the template's file and line),
exit 1, and no file is created."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from cardsmith.present.render import TemplateError, environment, render_template

ROOT = Path(__file__).resolve().parent.parent
FIRST_PACK = ROOT / "docs" / "first-pack"

# Each reaches for Python's internals a different way; the first creates a file when it is not stopped.
PAYLOADS = {
    "globals-of-a-global": "{{ cycler.__init__.__globals__.os.open('pwned.txt', 65) }}",
    "class-mro-subclasses": "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "lipsum-globals": "{{ lipsum.__globals__['os'].system('touch pwned.txt') }}",
    "template-reference-context": "{{ self._TemplateReference__context }}",
    "joiner-globals": "{{ joiner.__init__.__globals__ }}",
    "mutating-a-value": "{% set x = [] %}{{ x.append(1) }}",
    "huge-string": "{{ 'a' * 100000000 }}",
}


def _pack_with_template(tmp_path: Path, name: str, payload: str) -> Path:
    pack = tmp_path / "trinkets"
    shutil.copytree(FIRST_PACK, pack)
    (pack / "templates").mkdir()
    (pack / "templates" / name).write_text("<html>\n<body>\n" + payload + "\n</body></html>\n", encoding="utf-8")
    return pack


def _run(tmp_path: Path, args: list[str]):
    here = os.getcwd()
    os.chdir(tmp_path)  # a payload that ran would create pwned.txt here
    try:
        return CliRunner().invoke(main, args)
    finally:
        os.chdir(here)


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_reference_refuses_a_template_that_reaches_for_python(tmp_path, payload):
    pack = _pack_with_template(tmp_path, "reference.html.j2", payload)
    out = tmp_path / "out.html"
    r = _run(tmp_path, ["reference", str(pack), "--format", "html", "-o", str(out)])
    assert r.exit_code == 1, r.output
    assert "error[E030]" in r.output
    assert "reference.html.j2:3:" in r.output  # the payload's line in the template
    assert not (tmp_path / "pwned.txt").exists()
    assert not out.exists()


@pytest.mark.parametrize("payload", list(PAYLOADS.values())[:3], ids=list(PAYLOADS)[:3])
def test_sheets_refuse_the_same_payloads(tmp_path, payload):
    pack = _pack_with_template(tmp_path, "sheets.html.j2", payload)
    out = tmp_path / "cards.html"
    r = _run(tmp_path, ["sheets", str(pack), "-o", str(out)])
    assert r.exit_code == 1, r.output
    assert "error[E030]" in r.output and "sheets.html.j2:3:" in r.output
    assert not (tmp_path / "pwned.txt").exists()
    assert not out.exists()


def test_balance_refuses_a_payload_and_leaves_no_report(tmp_path):
    pytest.importorskip("matplotlib")
    pack = _pack_with_template(tmp_path, "balance.html.j2", PAYLOADS["globals-of-a-global"])
    out = tmp_path / "report"
    r = _run(tmp_path, ["balance", str(pack), "-n", "2", "-o", str(out), "--no-progress"])
    assert r.exit_code == 1, r.output
    assert "error[E030]" in r.output and "balance.html.j2:3:" in r.output
    assert not (tmp_path / "pwned.txt").exists()
    assert not out.exists() or not [p for p in out.iterdir() if not p.name.startswith(".")]


def test_a_template_that_does_not_parse_is_located(tmp_path):
    pack = _pack_with_template(tmp_path, "reference.html.j2", "{% for x in %}")
    r = _run(tmp_path, ["reference", str(pack), "--format", "html", "-o", str(tmp_path / "o.html")])
    assert r.exit_code == 1 and "error[E030]" in r.output and "does not parse" in r.output
    assert "reference.html.j2:3:" in r.output


def test_a_symlinked_template_does_not_pull_in_a_file_from_outside(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n", encoding="utf-8")
    pack = tmp_path / "trinkets"
    shutil.copytree(FIRST_PACK, pack)
    (pack / "templates").mkdir()
    (pack / "templates" / "reference.html.j2").symlink_to(secret)
    r = _run(tmp_path, ["reference", str(pack), "--format", "html", "-o", str(tmp_path / "o.html")])
    assert r.exit_code == 1 and "error[E030]" in r.output and "symbolic links" in r.output
    assert "top secret" not in r.output and not (tmp_path / "o.html").exists()


def test_our_own_templates_render_in_the_sandbox_too():
    env = environment(None)
    assert type(env).__name__ == "_Sandbox"
    with pytest.raises(TemplateError):
        render_template(env, "reference.html.j2")  # no data given: a located failure, not a traceback


def test_a_harmless_pack_template_still_renders(tmp_path):
    pack = _pack_with_template(tmp_path, "reference.html.j2", "{{ ref.pack_name|upper }} {{ ref.cards|length }}")
    out = tmp_path / "o.html"
    r = _run(tmp_path, ["reference", str(pack), "--format", "html", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "TRINKETS" in out.read_text(encoding="utf-8")
