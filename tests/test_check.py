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


TRICKS = next(p for p in EXAMPLES if p.name == "little_tricks.rules")


def test_check_json_keeps_its_document_for_input_that_stops_it(tmp_path):
    # `check --json` of a folder with no .rules files in it printed the other commands'
    # {"ok", "diagnostics"} document, and the diagnostic on stderr too; docs/cli.md promises
    # {"ok", "files": [...]} and nothing on stderr, as for a spec that is not there
    import json
    empty = tmp_path / "empty"
    empty.mkdir()
    for args, path, code in ((["check", "--json", str(empty)], str(empty), "E001"),
                             (["check", str(TRICKS), "--json", "--rulebooks", str(tmp_path / "nope")], None, "E001"),
                             (["check", "--json"], None, "E006")):
        r = run_cli(*args)
        doc = json.loads(r.out)
        assert r.code == 2 and r.err == "" and set(doc) == {"ok", "files"} and doc["ok"] is False, (args, r)
        (entry,) = doc["files"]
        assert {k: v for k, v in entry.items() if k != "diagnostics"} == \
            {"path": path, "ok": False, "rulebook": None, "scenarios": []}, args
        assert [d["code"] for d in entry["diagnostics"]] == [code], args
    # without --json the diagnostic goes to stderr, and the count of errors to stdout, as for a
    # spec with errors; other commands keep theirs
    r = run_cli("check", str(empty))
    assert r.code == 2 and r.out == f"{empty}: 1 error\n" and "error[E001]: " in r.err and \
        "no .rules files in it" in r.err, r
    r = run_cli("test", "--json", str(empty))
    assert r.code == 2 and set(json.loads(r.out)) == {"ok", "diagnostics"} and "error[E001]" in r.err, r


def _specs_and_rulebooks(tmp_path, monkeypatch):
    """sp/t.rules (little_tricks) beside sp/rulebook.md, and rb/rulebook.md: one of the two real."""
    import shutil
    (tmp_path / "rb").mkdir()
    (tmp_path / "sp").mkdir()
    shutil.copy(TRICKS, tmp_path / "sp" / "t.rules")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RULESPEC_RULEBOOKS", raising=False)

    def real(where: str, other: str | None):
        shutil.copy(TRICKS.parent / "rulebook.md", tmp_path / where / "rulebook.md")
        if other:
            (tmp_path / other / "rulebook.md").write_text("# Another game's rules\n")
    return real


def test_a_rulebooks_folder_given_comes_before_a_copy_beside_the_spec(tmp_path, monkeypatch):
    # `check --rulebooks rb sp/t.rules` read sp/rulebook.md when there was one (ok, exit 0, "checked
    # in rulebook.md"), and the rulebook in rb only where there was none
    import json
    real = _specs_and_rulebooks(tmp_path, monkeypatch)
    real("rb", other="sp")
    r = run_cli("check", "--json", "--no-scenarios", "--rulebooks", "rb", "sp/t.rules")
    assert r.code == 0 and json.loads(r.out)["files"][0]["rulebook"] == "rb/rulebook.md", r
    monkeypatch.setenv("RULESPEC_RULEBOOKS", "rb")  # (the option's default: the same)
    r = run_cli("check", "--json", "--no-scenarios", "sp/t.rules")
    assert r.code == 0 and json.loads(r.out)["files"][0]["rulebook"] == "rb/rulebook.md", r
    # the other way round: the folder's rulebook is read, and each citation not in it names its path
    real("sp", other="rb")
    r = run_cli("check", "--no-scenarios", "--rulebooks", "rb", "sp/t.rules")
    assert r.code == 2 and 'error[E306]: the locator "1 Players" does not occur in rb/rulebook.md' in r.err, r
    # a folder without it: the copy beside the spec (as `make run` checks the examples)
    (tmp_path / "rb" / "rulebook.md").unlink()
    r = run_cli("check", "--json", "--no-scenarios", "--rulebooks", "rb", "sp/t.rules")
    assert r.code == 0 and json.loads(r.out)["files"][0]["rulebook"] == "sp/rulebook.md", r


def test_the_ok_line_names_the_rulebook_read(tmp_path, monkeypatch):
    real = _specs_and_rulebooks(tmp_path, monkeypatch)
    real("rb", other="sp")
    r = run_cli("check", "--no-scenarios", "--rulebooks", "rb", "sp/t.rules")
    assert r.code == 0 and r.out.endswith(", citations checked in rb/rulebook.md\n"), r


def test_shown_path_is_relative_where_shorter(tmp_path, monkeypatch):
    import os

    from verifier.citations import shown_path
    monkeypatch.chdir(tmp_path)
    assert shown_path("rb/rulebook.md") == shown_path(str(tmp_path / "rb" / "rulebook.md")) == "rb/rulebook.md"
    assert shown_path("./rulebook.md") == "rulebook.md"
    far = os.path.join(os.sep, "elsewhere", "books", "de.txt")  # ../../elsewhere/... is longer
    assert shown_path(far) == far


def test_a_folder_with_no_spec_is_told_and_the_other_specs_still_checked(tmp_path):
    # it stopped the command before the others were checked
    import json

    from conftest import EXAMPLES

    tricks = str(next(p for p in EXAMPLES if p.name == "little_tricks.rules"))
    (tmp_path / "empty").mkdir()
    r = run_cli("check", "--no-scenarios", str(tmp_path / "empty"), tricks)
    assert r.code == 2 and f"{tmp_path / 'empty'}: 1 error" in r.out and f"{tricks}: ok" in r.out, r
    assert "is a directory with no .rules files in it" in r.err
    r = run_cli("check", "--no-scenarios", "--json", str(tmp_path / "empty"), tricks)
    doc = json.loads(r.out)
    assert r.code == 2 and r.err == "" and doc["ok"] is False
    assert [(f["path"], f["ok"]) for f in doc["files"]] == [(str(tmp_path / "empty"), False), (tricks, True)]
    assert doc["files"][0]["diagnostics"][0]["code"] == "E001"
