"""The command line: exit codes, formats, help, and no tracebacks on bad input."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cardsmith.cli import main
from helpers import ROOT, VMTEST


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_every_command_explains_itself_with_an_example():
    for cmd in ("validate", "compile", "disasm", "simulate", "test", "schema", "packs", "replay"):
        res = run(cmd, "--help")
        assert res.exit_code == 0, cmd
        assert "Example" in res.output, f"{cmd} --help has no example"


def test_validate_clean_pack_exits_0():
    res = run("validate", ROOT / "cards")
    assert res.exit_code == 0, res.output


def test_validate_reports_errors_with_position_and_exit_1(tmp_path):
    pack = tmp_path / "p"
    pack.mkdir()
    (pack / "pack.yaml").write_text("id: p\nname: P\nversion: 1.0.0\n")
    (pack / "rules.yaml").write_text((VMTEST / "rules.yaml").read_text())
    (pack / "cards.yaml").write_text("cards:\n  - {id: a, name: A, type: unit, abilities: {act: \"gain 2 glod\"}}\n")
    res = run("validate", pack)
    assert res.exit_code == 1
    assert "cards.yaml:2:" in res.output and "error[E101]" in res.output and "did you mean 'gold'" in res.output
    res = run("validate", pack, "--format", "json")
    data = json.loads(res.output.split("\n1 pack")[0] if "\n1 pack" in res.output else res.output)
    assert data[0]["code"] == "E101" and data[0]["line"] == 2
    res = run("validate", pack, "--format", "github")
    assert res.output.startswith("::error file=")


def test_validate_missing_path_is_a_finding_not_a_traceback():
    res = run("validate", "no/such/place")
    assert res.exit_code == 1
    assert "Traceback" not in res.output


def test_usage_errors_exit_2():
    assert run("simulate", "earth", "--players", "9").exit_code == 2
    assert run("simulate", "earth", "--agents", "genius").exit_code == 2
    assert run("simulate", "earth", "--param", "nope=1").exit_code == 2
    assert run("disasm", "earth", "no-such-card").exit_code == 2


@pytest.mark.parametrize(("value", "message"), [
    ("advanced=[1]", "'advanced' is a whole number (default 0), not [1]"),
    ("advanced=1.5", "'advanced' is a whole number"),
    ("advanced=true", "'advanced' is a whole number"),
    ("start-seeds=3", "'start-seeds' is a list of whole numbers (default [2, 1]), not 3"),
    ("start-seeds=[1,\"x\"]", "'start-seeds' is a list of whole numbers"),
])
def test_param_of_the_wrong_type_is_a_usage_error(value, message):
    # a parameter keeps the type rules.yaml declares: the game never runs with a list where a number goes
    res = run("simulate", "earth-abundance", "-n", "1", "-p", "2", "--no-progress", "--param", value)
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output


def test_param_of_the_declared_type_is_used():
    res = run("simulate", "earth-abundance", "-n", "1", "-p", "2", "--no-progress", "--json",
              "--param", "start-seeds=[1,1]", "--param", "advanced=1")
    assert res.exit_code == 0 and json.loads(res.stdout)["params"] == {"start-seeds": [1, 1], "advanced": 1}


def test_unknown_pack_is_reported():
    res = run("compile", "no-such-pack")
    assert res.exit_code == 1
    assert "no pack 'no-such-pack'" in res.output


def test_compile_writes_versioned_bytecode(tmp_path):
    out = tmp_path / "earth.json"
    assert run("compile", "earth", "-o", out).exit_code == 0
    data = json.loads(out.read_text())
    assert data["format"] == 1 and data["id"] == "earth" and data["cards"]


def test_disasm_shows_source_lines():
    res = run("disasm", "earth", "mountain-ridge")
    assert res.exit_code == 0
    assert "PATH" in res.output and "terrain.yaml" in res.output


@pytest.mark.parametrize("name", ["pack", "rules", "cards", "scenario"])
def test_schema_prints_json(name):
    res = run("schema", name)
    assert res.exit_code == 0
    assert json.loads(res.output)["$schema"].startswith("https://json-schema.org/")


def test_packs_lists_earth():
    res = run("packs", "--json")
    rows = json.loads(res.output)
    assert any(r["id"] == "earth" and r["ok"] for r in rows)


def test_a_reader_that_leaves_early_is_not_an_error():
    # `cardsmith describe earth | head -1`: no "internal error", no traceback, the exit code of SIGPIPE
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "cardsmith", "describe", "earth"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) in (0, 141) and "internal error" not in err and "Traceback" not in err


def test_simulate_json_reports_the_shared_counters_at_the_end():
    # how a game ended: Terraforming Mars' three parameters at their maximum, and its generation count
    res = run("simulate", "terraforming-mars", "-n", "1", "-p", "2", "--seed", "3", "--no-progress", "--json")
    game = json.loads(res.stdout)["games"][0]
    end = game["shared_counters"]
    assert (end["temperature"], end["oxygen"], end["oceans"]) == (8, 14, 9) and end["generation"] >= 1


def test_the_command_table_names_each_command_s_module_and_help():
    """`cardsmith --help` lists the commands from cli.COMMANDS without importing them: each entry must name the
    module that defines the command and the first paragraph of its help, so the list cannot drift."""
    import click

    from cardsmith import cli

    cli._load_all()
    assert set(main.commands) == set(cli.COMMANDS)
    for name, (module, first) in cli.COMMANDS.items():
        cmd = main.commands[name]
        assert cmd.callback.__module__ == f"cardsmith.cli.{module}", name
        assert " ".join(cmd.help.split("\n\n")[0].split()) == first, name
        assert click.utils.make_default_short_help(first, 60) == cmd.get_short_help_str(60), name


def test_help_loads_no_command_and_no_compiler():
    """--help in a fresh interpreter imports neither a command's module nor the compiler's stages nor the VM."""
    import subprocess
    import sys

    code = ("import sys; from cardsmith.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('cardsmith.')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    loaded = run.stdout.strip().splitlines()[-1]
    for heavy in ("cardsmith.compiler.pipeline", "cardsmith.compiler.parse", "cardsmith.runtime.vm",
                  "cardsmith.cli.validate", "cardsmith.cli.play"):
        assert heavy not in loaded, loaded


def test_validate_of_an_unchanged_pack_needs_no_compiler_stage(tmp_path):
    """validate on a warm cache, in a fresh interpreter: the findings from the cached compile, without importing
    the parser, the checker or the schemas."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "CARDSMITH_CACHE": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    code = ("import sys; from cardsmith.cli import main\n"
            "try:\n    main(['validate', 'living-forest'])\nexcept SystemExit as e:\n    print('exit', e.code)\n"
            "print(sorted(m for m in sys.modules if m.startswith('cardsmith.compiler.')))")
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert "exit 0" in first.stdout and "exit 0" in second.stdout, first.stderr + second.stderr
    assert first.stderr == second.stderr  # the same report
    loaded = second.stdout.strip().splitlines()[-1]
    assert "cardsmith.compiler.pipeline" in first.stdout
    for heavy in ("cardsmith.compiler.pipeline", "cardsmith.compiler.parse", "cardsmith.compiler.schema",
                  "cardsmith.compiler.check"):
        assert heavy not in loaded, loaded
