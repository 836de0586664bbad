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


# ---- defects a fuzzer found: each spec was accepted (or crashed check) and then crashed a tool ----

HEAD = 'game g "G"\nplayers 2..2 cite "P" "p"\ninit cite "P" "p" { }\n'


def _errors(text: str) -> list[tuple]:
    return [(d.code, d.span.line, d.span.col, d.message) for d in diagnostics_of(text) if d.is_error]


@pytest.mark.parametrize("value, col, name", [("bool", 11, "bool"), ("Player", 11, "Player"), ("int", 11, "int"),
                                              ("size([bool])", 17, "bool"), ("C", 11, "C"), ("K", 11, "K")])
def test_a_type_name_is_no_value(value, col, name, tmp_path):
    # `const b = bool` passed the checker, whose lowering then failed (exit 3: AssertionError)
    text = HEAD + f"enum C {{ red }}\ncard K {{ v: 1..2 }}\nconst b = {value}\n"
    assert _errors(text) == [("E201", 6, col, f"'{name}' is a type, not a value")]
    (tmp_path / "t.rules").write_text(text)
    r = run_cli("check", "--no-scenarios", str(tmp_path / "t.rules"))
    assert r.code == 2 and "Traceback" not in r.err and "hint: write a" in r.err, r
    # where a domain is expected, a type still stands for all its values
    assert _errors(HEAD + "enum C { red }\nconst n = count(c in C where c == red)\nconst m = count(p in Player)\n") == []


def test_a_zone_named_like_an_enum_value_with_a_refill():
    # the refill compared the zone's type with its source's, and took the enum value's type for the
    # zone's: AttributeError ('EnumT' object has no attribute 'elem'), exit 3
    text = HEAD + "enum C { red }\nzone red: pile of C refill from d\nzone d: bag of C\n"
    assert _errors(text) == [("E102", 5, 6, "'red' is already an enum value")]
    text = HEAD + "enum C { red }\nvar v: 0..3\nzone v: pile of C refill from d\nzone d: pile of C\n"
    assert _errors(text) == [("E102", 6, 6, "'v' is already a var")]
    text = HEAD + "enum C { red }\nconst d = 3\nzone s: pile of C refill from d\n"
    assert _errors(text) == [("E204", 6, 19, "'d' is a constant, not a zone")]


@pytest.mark.parametrize("decls, line, col, message", [
    ("const n = n + 1\n", 4, 11, "constant 'n' is defined in terms of itself (n -> n)"),
    ("const n = n\n", 4, 11, "constant 'n' is defined in terms of itself (n -> n)"),
    ("card K { v: 1..2 }\nconst deck: bag of K = { deck }\n", 5, 26,
     "constant 'deck' is defined in terms of itself (deck -> deck)"),
    ("const a = b + 1\nconst b = a * 2\n", 5, 11, "constant 'a' is defined in terms of itself (a -> b -> a)"),
    ("def f(): int = n\nconst n = f()\n", 4, 16, "constant 'n' is defined in terms of itself (n -> f -> n)"),
    ("const m = 1\nconst n = g() + m\ndef g(): int = h(m)\ndef h(k: int): int = k + n\n", 7, 26,
     "constant 'n' is defined in terms of itself (n -> g -> h -> n)"),
])
def test_a_constant_defined_in_terms_of_itself(decls, line, col, message):
    # it passed the checker; simulate then failed (TypeError) and verify too (KeyError), exit 3
    assert _errors(HEAD + decls) == [("E209", line, col, message)]
    # constants of constants, and definitions calling each other without a cycle, are fine
    assert _errors(HEAD + "const a = 2\nconst b = a + f(a)\ndef f(k: int): int = k + a\n") == []


def test_types_with_too_many_values_to_list():
    # simulate kept a slot per card of `bag of K` ([0] * 10^9: gigabytes, or MemoryError)
    from verifier.check import DOMAIN_LIMIT
    assert DOMAIN_LIMIT == 10_000
    text = HEAD + 'card K { v: 1..1000000000 }\nzone s: bag of K\n/// a.\naction a(p: Player) by p cite "P" "p" { ' \
                  's := { K(1) } }\n'
    (d,) = [d for d in diagnostics_of(text) if d.is_error]
    assert (d.code, d.span.line, d.span.col, d.message) == \
        ("E205", 5, 16, "a zone keeps one entry per value of K: 1,000,000,000 values, more than the limit of 10,000")
    assert d.hint == "K has one value per combination of its fields (v: 1,000,000,000): narrow their ranges"
    card = HEAD + "card K { a: 1..100, b: 1..101 }\n"
    for decl, col, message in [
            ("var m: map K -> bool", 12, "a map keeps one entry per value of its key K: 10,100 values"),
            ("var s: set of K", 15, "a set of K keeps one entry per value of K: 10,100 values"),
            ("zone z[K]: bag of bool", 8, "'z' is one zone per value of K: 10,100 values"),
            ("param c: K", 10, "parameter 'c' is drawn from the values of K: 10,100 values"),
            ("stat st(k: K): 1", 12, "a stat is reported for each value of K: 10,100 values"),
            ("const c = count(k in K)", 22, "ranging over 'K' goes through each of its values: 10,100 values"),
            ("const c = count(k in 0..10000)", 22,
             "ranging over 0..10000 goes through each of its values: 10,001 values"),
            ("/// a.\naction a(p: Player, s: set of 1..14) by p cite \"P\" \"p\" { skip }", 24,
             "a move chooses 's' among the values of set of 1..14: 16,384 values")]:
        line = 5 + decl.count("\n")
        assert _errors(card + decl + "\n") == [("E205", line, col, f"{message}, more than the limit of 10,000")], decl
    # a map of maps: every entry is kept
    assert _errors(HEAD + "var m: map 0..99 -> map 0..100 -> bool\n") == \
        [("E205", 4, 8, "'m' has 10,100 entries (map 0..99 -> map 0..100 -> bool), more than the limit of 10,000")]
    # at the limit, and numbers that are stored rather than listed (a var, a drawn parameter), are fine
    assert _errors(HEAD + "card K { a: 1..100, b: 1..100 }\nzone s: bag of K\nvar m: map 0..99 -> map 0..99 -> bool\n"
                          "card B { v: 1..1000000000 }\nvar c: B\nvar x: 0..1000000000\n"
                          "param n: 0..1000000000\n") == []


def test_a_range_as_wide_as_the_player_count_makes_it_is_limited_too():
    # `0..players * 100000000` passed the checker: simulate took 51 s a game, and verify, which goes
    # through every number, used 21 GB before it was stopped
    head = 'game g "G"\nplayers 2..3 cite "P" "p"\nconst k = 3334\nvar x: 0..9\ninit cite "P" "p" { x := 0 }\n'
    action = '/// a.\naction a(p: Player) by p cite "P" "p" when all(i in {}: i >= 0) {{ skip }}\n'
    assert _errors(head + action.format("0..players * k")) == \
        [("E205", 7, 53, "ranging over 0..10002 (with 3 players) goes through each of its values: 10,003 values, "
                         "more than the limit of 10,000")]
    # the widest range may come with the fewest players; within the limit with every count, it is fine
    assert _errors(head + action.format("0..20002 / players")) == \
        [("E205", 7, 53, "ranging over 0..10001 (with 2 players) goes through each of its values: 10,002 values, "
                         "more than the limit of 10,000")]
    assert _errors(head + action.format("1..players * 3333")) == []
    # players through a constant; and a scenario is measured with the count it runs with alone
    assert _errors(head + "const w = players * k\n" + action.format("0..w")) == \
        [("E205", 8, 53, "ranging over 0..10002 (with 3 players) goes through each of its values: 10,003 values, "
                         "more than the limit of 10,000")]
    scenario = ('scenario s cite "P" "p" {{\n  {}\n  setup {{ for i in 0..players * k {{ skip }} }}\n  do a(0)\n'
                '  expect x == 0\n}}\n')
    plain = head + action.format("0..1")
    assert _errors(plain + scenario.format("players 2")) == []
    assert _errors(plain + scenario.format("")) == []  # (it runs with the fewest)
    assert _errors(plain + scenario.format("players 3")) == \
        [("E205", 10, 20, "ranging over 0..10002 (with 3 players) goes through each of its values: 10,003 values, "
                          "more than the limit of 10,000")]


@pytest.mark.parametrize("stmt, col", [("shuffle [][0]", 29), ("x := size([][0])", 31), ("x := [][0]", 26)])
def test_an_empty_list_has_nothing_to_index(stmt, col):
    # found by mutation fuzzing: `[][0]` had no type and no diagnostic, so that lowering it as a
    # zone was an internal error (AttributeError in lower), and verify's size() of it another (z3)
    text = 'game g "G"\nplayers 2..2 cite "P" "p"\nvar x: 0..3\ninit cite "P" "p" { ' + stmt + " }\n"
    assert _errors(text) == [("E207", 4, col, "an empty list has no element at any position")]


def test_a_pile_refilled_from_itself_is_refused():
    # it was accepted (left by the fuzzing's fixes): a pile is refilled when it is empty, so from
    # itself nothing would ever come
    text = HEAD + "enum C { red }\nzone s: pile of C refill from s\n"
    assert _errors(text) == [("E210", 5, 19, "'s' cannot be refilled from itself")]
