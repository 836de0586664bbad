"""The checker: golden bad specs with their expected diagnostics written inside them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verifier.diagnostics import CODES

from conftest import EXAMPLES, MINI, ROOT, diagnostics_of, run_cli

BAD = sorted((ROOT / "tests" / "specs" / "bad").glob("*.rules"))
GOOD = sorted((ROOT / "tests" / "specs" / "good").glob("*.rules"))
EXPECT = re.compile(r"^// expect: (\w+) (?:(\d+):(\d+)|-) (.*)$", re.M)


def expectations(path: Path) -> list[tuple]:
    return [(m.group(1), int(m.group(2) or 0), int(m.group(3) or 0), m.group(4))
            for m in EXPECT.finditer(path.read_text())]


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_spec_gives_exactly_its_expected_diagnostics(path):
    expected = expectations(path)
    assert expected, f"{path.name} lists no expected diagnostics"
    got = [(d.code, d.span.line if d.span else 0, d.span.col if d.span else 0, d.message)
           for d in diagnostics_of(path.read_text(), path.name)]
    assert got == expected


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_spec_exits_2_with_carets_and_no_traceback(path):
    r = run_cli("check", str(path))
    assert r.code == 2
    assert "Traceback" not in r.err + r.out
    first = next(line for line in r.err.splitlines() if "error[" in line)
    assert re.match(r"^.+\.rules:\d+:\d+: error\[E\d{3}\]: ", first)
    assert "^" in r.err


@pytest.mark.parametrize("path", GOOD + EXAMPLES, ids=lambda p: p.name)
def test_good_specs_have_no_errors(path):
    diags = diagnostics_of(path.read_text(), str(path))
    assert not [d for d in diags if d.is_error], "\n".join(d.render() for d in diags)


def test_all_errors_of_a_file_in_one_run():
    text = MINI + "\n/// x\naction a() cite \"A\" \"a\" { tunr := 0  hnad[0] := {} }\n"
    codes = [d.code for d in diagnostics_of(text) if d.is_error]
    assert codes == ["E101", "E101"]


def test_did_you_mean_hint():
    d, = [d for d in diagnostics_of(MINI.replace("c in hand[p] and", "c in hnad[p] and")) if d.is_error]
    assert d.hint == "did you mean 'hand'?"


def test_missing_doc_comment_is_a_warning_not_an_error():
    text = MINI.replace("/// Lay a chip down.\n", "")
    diags = diagnostics_of(text)
    assert [(d.code, d.severity) for d in diags] == [("W401", "warning")]


def test_unused_declaration_warning():
    diags = diagnostics_of(MINI + "\nvar unused_thing: bool\n")
    assert [d.code for d in diags] == ["W402"]


def test_a_constant_used_only_in_a_range_bound_is_used():
    diags = diagnostics_of(MINI + "\nconst highest = 10 * 5\nvar tally: 0..highest\nconst never = 3\n")
    assert [(d.code, d.message) for d in diags] == [("W402", "var 'tally' is never used"),
                                                    ("W402", "const 'never' is never used")]


def test_every_code_is_documented():
    text = (ROOT / "docs" / "errors.md").read_text()
    for code in CODES:
        assert f"## {code}" in text, f"{code} is not described in docs/errors.md"


def test_diagnostic_json_form():
    r = run_cli("check", "--json", str(BAD[0]))
    import json

    doc = json.loads(r.out)
    d = doc["files"][0]["diagnostics"][0]
    assert set(d) == {"code", "severity", "message", "span", "hint", "context"}
    assert set(d["span"]) == {"file", "line", "col", "end_line", "end_col"}
    assert doc["ok"] is False and r.code == 2
