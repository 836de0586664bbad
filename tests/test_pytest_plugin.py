"""The pytest plugin (verifier/pytest_plugin.py): .rules files collected as scenario and fuzz tests."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

SPEC = """
game counters "Counters"
players 2..3 cite "Players" "two or three"
var n: 0..9
init cite "Setup" "zero" { n := 0 }
/// Count up.
action up() cite "Play" "count" when n < 9 { n += 1 }
end nine cite "End" "at nine": n == 9
/// The count stays below three.
invariant small cite "Play" "small": n < INVARIANT_LIMIT
/// Counting up once makes one.
scenario once cite "Play" "count" {
  players 2
  do up()
  expect n == 1
}
/// A wrong ruling: counting up once does not make two.
scenario wrong cite "Play" "count" {
  players 2
  do up()
  expect n == 2
}
"""


def pytest_run(folder, *args):
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *args],
                       cwd=folder, capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout + r.stderr


def test_a_rules_file_named_on_the_command_line_becomes_tests(tmp_path):
    (tmp_path / "counters.rules").write_text(SPEC.replace("INVARIANT_LIMIT", "3"))
    code, out = pytest_run(tmp_path, "counters.rules", "-rA", "--rulespec-examples", "30")
    assert code == 1, out
    for item, verdict in (("scenario[once]", "PASSED"), ("scenario[wrong]", "FAILED"),
                          ("fuzz[2p]", "FAILED"), ("fuzz[3p]", "FAILED")):
        assert f"{verdict} counters.rules::{item}" in out, out
    assert "expect n == 2" in out or "n == 2" in out
    assert "[violation] invariant small violated: shrunk from" in out and "to 3 moves" in out
    assert "Traceback" not in out


def test_folders_of_the_ini_option_are_collected_and_nothing_else(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\nrulespec_specs = ["specs"]\n')
    (tmp_path / "specs").mkdir()
    (tmp_path / "other").mkdir()
    sound = SPEC.replace("INVARIANT_LIMIT", "10").replace("expect n == 2", "expect n == 1")
    (tmp_path / "specs" / "counters.rules").write_text(sound)
    (tmp_path / "other" / "broken.rules").write_text("game ???")
    code, out = pytest_run(tmp_path, "--collect-only")
    assert code == 0 and "4 tests collected" in out and "broken" not in out, out
    code, out = pytest_run(tmp_path, "-m", "rulespec_fuzz")
    assert code == 0 and "2 passed, 2 deselected" in out, out


def test_a_spec_with_errors_is_one_failing_test_with_its_diagnostics(tmp_path):
    (tmp_path / "bad.rules").write_text("game bad \"Bad\"\nplayers 2..2 cite \"P\" \"two\"\nvar n: 0..9\n"
                                        "init cite \"S\" \"s\" { m := 1 }\n")
    code, out = pytest_run(tmp_path, "bad.rules")
    assert code == 1 and "bad.rules::check" in out and "error[E101]" in out and "Traceback" not in out, out


def test_the_project_collects_its_shipped_specs():
    code, out = pytest_run(ROOT, "--collect-only", "examples", "spec")
    assert code == 0, out
    assert "spec/sieben_weisen/de.rules::fuzz[5p]" in out and "examples/little_tricks/little_tricks.rules::scenario[trump_wins]" in out
