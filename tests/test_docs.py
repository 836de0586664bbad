"""rulespec docs: the pages, the statuses, verify results, escaping, and never overwriting the user's files."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import markdown
import pytest

from verifier.docs import MARKER, default_specs, source_text
from verifier.pipeline import load_spec

from conftest import EXAMPLES, ROOT, run_cli

TRICKS = str(next(p for p in EXAMPLES if p.name == "little_tricks.rules"))
WANDS = str(next(p for p in EXAMPLES if p.name == "tug_of_wands.rules"))
EXTENSIONS = ["tables", "attr_list", "md_in_html", "admonition", "toc", "pymdownx.superfences"]


def _gen(tmp_path, *args, spec=TRICKS, games="8"):
    out = tmp_path / "out"
    r = run_cli("docs", spec, "--out", str(out), "--games", games, *args)
    return r, out


def _html(path) -> str:
    return markdown.markdown(path.read_text(encoding="utf-8"), extensions=EXTENSIONS)


def test_pages_of_a_spec(tmp_path):
    r, out = _gen(tmp_path)
    assert r.code == 0, r
    folder = out / "little_tricks" / "en"
    for page in ("index.md", "rules.md", "properties.md", "gaps.md", "statistics.md"):
        assert (folder / page).is_file(), page
    assert (out / "index.md").is_file() and (out / "differences.md").is_file()
    nav = json.loads((out / "nav.json").read_text())
    assert nav[0] == {"Overview": "index.md"} and "little_tricks" in nav[1]
    rules = (folder / "rules.md").read_text()
    # the rule table, the diagram, every rule with its words, formal text and citation
    assert "| rule | who | phase | what it does | rulebook |" in rules
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="rulespec-diagram"' in rules
    spec = load_spec(TRICKS)[0]
    for a in spec.actions:
        assert f"### `{a.name}`" in rules
        assert source_text(a.span).splitlines()[0] in rules
    assert "move `c` from `p`'s `hand` to `p`'s `table`" in rules
    assert "§ 6 Play: “must follow suit if able”" in rules
    index = (folder / "index.md").read_text()
    assert "### Zones" in index and "## Setup" in index and "| `hand_size` |" in index
    stats = (folder / "statistics.md").read_text()
    assert "![moves per game](plots/moves.svg)" in stats and (folder / "plots" / "moves.svg").is_file()
    assert "## `final_score`" in stats and (folder / "plots" / "stat-0.svg").read_text().startswith("<svg")
    assert "No difference report given" in (out / "differences.md").read_text()
    listed = set(json.loads((out / MARKER).read_text())["files"])
    on_disk = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()} - {MARKER}
    assert listed == on_disk


def test_statuses_without_results_are_never_proved(tmp_path):
    r, out = _gen(tmp_path, spec=WANDS)
    assert r.code == 0, r
    page = (out / "tug_of_wands" / "en" / "properties.md").read_text()
    head = page.split("\n## ", 1)[0]  # the summary table, before the first property's section
    table = [line for line in head.splitlines() if line.startswith("| [`")]
    spec = load_spec(WANDS)[0]
    assert len(table) == len(spec.properties)
    allowed = re.compile(r"^(tested \\\(8 games, no violation\\\)|\*\*violated\*\* \(expected\)|"
                         r"reachable \\\(in \d+ of 8 games\\\)|unknown \\\(not reached in 8 games\\\))$")
    for row in table:
        cells = [c.strip() for c in row.strip("|").split("|")][3:]
        assert cells and all(allowed.match(c) for c in cells), row
    # the expected violation comes with its trace
    assert "**Violated with 4 players.** Trace: 4 players" in page
    assert "proved" not in page.replace("Nothing here is proved", "")


def _verify_doc(spec_path: str) -> dict:
    trace = {"players": 3, "seed": "z", "params": {"first_dealer": "P0"},
             "steps": [{"index": 1, "move": "name_trump(P1, acorns)", "action": "name_trump",
                        "cite": {"locator": "4 Trump", "quote": "names"}, "changes": ["phase: trump_choice -> bidding"]}],
             "outcome": {"kind": "violation", "property": "hands_even"}}
    results = [
        {"property": "cards_conserved", "kind": "invariant", "players": 3, "status": "proved", "depth": None,
         "seconds": 1.5, "cite": None, "expected_violation": None, "message": "inductive", "trace": None},
        {"property": "cards_conserved", "kind": "invariant", "players": 4, "status": "bounded", "depth": 12,
         "seconds": 9.0, "cite": None, "expected_violation": None, "message": "", "trace": None},
        {"property": "hands_even", "kind": "invariant", "players": 3, "status": "violated", "depth": 1,
         "seconds": 0.2, "cite": None, "expected_violation": None, "message": "a counterexample", "trace": trace},
        {"property": "round_ends", "kind": "terminates", "players": 3, "status": "unknown", "depth": None,
         "seconds": 30, "cite": None, "expected_violation": None, "message": "solver timed out", "trace": None},
        {"property": "no_deadlock", "kind": "deadlock", "players": 3, "status": "proved", "depth": None,
         "seconds": 2, "cite": None, "expected_violation": None, "message": "", "trace": None},
    ]
    return {"ok": False, "specs": [{"spec": spec_path, "game": "little_tricks", "edition": "en", "results": results}]}


def test_statuses_from_a_verify_run(tmp_path):
    res = tmp_path / "verify.json"
    res.write_text(json.dumps(_verify_doc(TRICKS)))
    r, out = _gen(tmp_path, "--results", str(res))
    assert r.code == 0, r
    page = (out / "little_tricks" / "en" / "properties.md").read_text()
    row = next(line for line in page.splitlines() if line.startswith("| [`cards_conserved`]"))
    assert row.endswith("| proved | bounded \\(k = 12\\) |")
    row = next(line for line in page.splitlines() if line.startswith("| [`hands_even`]"))
    assert "| **violated** | not checked |" in row
    assert "**Violated with 3 players.**" in page and "name\\_trump\\(P1, acorns\\)" in page
    row = next(line for line in page.splitlines() if line.startswith("| [`round_ends`]"))
    assert "| unknown |" in row
    assert "## Other checks of the verify run" in page and "`no_deadlock`" in page
    assert f"property statuses from {res}" in r.out


@pytest.mark.parametrize("content, message", [
    ("{", "not JSON"),
    ("[]", "expected {\"ok\": ..., \"specs\": [...]}"),
    ('{"specs": [{"game": "g", "results": [{"property": "p", "kind": "invariant", "players": 3, '
     '"status": "probably"}]}]}', '"status" must be one of'),
    ('{"specs": [{"game": "g", "results": [{"property": "p", "kind": "invariant", "players": 0, '
     '"status": "proved"}]}]}', '"players" must be a positive number'),
    ('{"specs": [{"game": "g", "results": [{"property": "p", "kind": "invariant", "players": 3, '
     '"status": "violated", "trace": {"steps": [1]}}]}]}', "expected a step"),
])
def test_bad_results_file_exits_2(tmp_path, content, message):
    res = tmp_path / "bad.json"
    res.write_text(content)
    r, out = _gen(tmp_path, "--results", str(res))
    assert r.code == 2 and "error[E009]" in r.err and message in r.err, r
    assert "Traceback" not in r.err and not out.exists()


def test_results_and_diff_files_are_read_as_the_specs_are(tmp_path):
    # a broken JSON file shows its line with a caret (the place was only in the message); a BOM is
    # taken, as in a spec (it was refused); bytes that are not UTF-8 are E002 at the byte (E001);
    # a device is not read without end (its first 50 MB at most)
    res = tmp_path / "bad.json"
    res.write_text('{"ok": true,\n "specs": [\n  {"spec": 3\n')
    r, out = _gen(tmp_path, "--results", str(res))
    assert r.code == 2 and f"{res}:4:1: error[E009]" in r.err and "not JSON" in r.err, r
    ok = tmp_path / "ok.json"
    ok.write_bytes(b"\xef\xbb\xbf" + json.dumps({"ok": True, "specs": []}).encode())
    r, out = _gen(tmp_path, "--results", str(ok))
    assert r.code == 0, r
    latin = tmp_path / "latin.md"
    latin.write_bytes(b"caf\xe9\n")
    r, out = _gen(tmp_path, "--diff", str(latin))
    assert r.code == 2 and f"{latin}:1:4: error[E002]" in r.err, r
    r, out = _gen(tmp_path, "--diff", "/dev/zero")
    assert r.code == 2 and "error[E003]" in r.err and "larger than 50 MB" in r.err, r


def test_missing_results_or_diff_file_exits_2(tmp_path):
    r, out = _gen(tmp_path, "--results", str(tmp_path / "nope.json"))
    assert r.code == 2 and "error[E001]" in r.err and not out.exists()
    r, out = _gen(tmp_path, "--diff", str(tmp_path / "nope.md"))
    assert r.code == 2 and "error[E001]" in r.err and not out.exists()


def test_a_bad_spec_writes_nothing(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text("game g\nplayers 2..3 cite \"P\" \"x\"\nvar a: 0..3\ninit cite \"S\" \"s\" { a := hnad }\n")
    r, out = _gen(tmp_path, spec=str(bad))
    assert r.code == 2 and "error[E101]" in r.err and "Traceback" not in r.err
    assert not out.exists()


def test_refuses_a_folder_with_other_files(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.md").write_text("mine")
    r = run_cli("docs", TRICKS, "--out", str(out), "--games", "2")
    assert r.code == 2 and "error[E008]" in r.err and "not written by rulespec" in r.err
    assert (out / "notes.md").read_text() == "mine" and len(list(out.iterdir())) == 1


def test_regenerates_its_own_folder_but_keeps_foreign_files_safe(tmp_path):
    r, out = _gen(tmp_path, games="2")
    assert r.code == 0
    stale = out / "little_tricks" / "en" / "rules.md"
    stale.write_text("old")
    r, out = _gen(tmp_path, games="2")
    assert r.code == 0 and stale.read_text() != "old"
    (out / "little_tricks" / "mine.txt").write_text("mine")
    r, out = _gen(tmp_path, games="2")
    assert r.code == 2 and "mine.txt" in r.err and (out / "little_tricks" / "mine.txt").read_text() == "mine"


def test_a_link_or_a_folder_of_the_user_s_in_the_folder_stops_the_run_before_anything_is_written(tmp_path):
    # a link to a folder named as a game's would be written through (the user's page replaced), and
    # an empty folder of the user's was deleted when the pages from before were cleared
    r, out = _gen(tmp_path, games="2")
    assert r.code == 0
    away = tmp_path / "away" / "en"
    away.mkdir(parents=True)
    (away / "index.md").write_text("precious")
    marker = (out / MARKER).read_text()
    (out / "other").symlink_to(away.parent)
    r, out = _gen(tmp_path, games="2")
    assert r.code == 2 and "error[E008]" in r.err and "other/" in r.err, r.err
    assert (away / "index.md").read_text() == "precious" and (out / MARKER).read_text() == marker
    (out / "other").unlink()
    (out / "mine").mkdir()
    r, out = _gen(tmp_path, games="2")
    assert r.code == 2 and "mine/" in r.err and (out / "mine").is_dir(), r.err
    (out / "mine").rmdir()
    r, out = _gen(tmp_path, games="2")
    assert r.code == 0 and (out / "little_tricks" / "en" / "index.md").is_file(), r.err


def test_a_marker_listing_files_outside_the_folder_deletes_nothing(tmp_path):
    # the marker file is trusted only for paths inside --out: it could list ../x or /abs/x (edited,
    # or copied from elsewhere), or a path through a link that leads out of the folder
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "victim.txt").write_text("precious")
    (tmp_path / "away").mkdir()
    (tmp_path / "away" / "page.md").write_text("precious")
    (out / "link").symlink_to(tmp_path / "away")
    for listed in (["../victim.txt"], [str(tmp_path / "victim.txt")], ["link/page.md"]):
        (out / MARKER).write_text(json.dumps({"files": listed}))
        r = run_cli("docs", TRICKS, "--out", str(out), "--games", "2")
        assert r.code == 2 and "error[E008]" in r.err and "damaged" in r.err, (listed, r.err)
    assert (tmp_path / "victim.txt").read_text() == "precious"
    assert (tmp_path / "away" / "page.md").read_text() == "precious"


def test_a_run_that_fails_after_the_checks_keeps_the_pages_from_before(tmp_path):
    # the second spec checks clean, but no parameter value meets its where with 3 players: the
    # simulations stop with E305. The pages of the run before were cleared before they ran
    r, out = _gen(tmp_path, games="2")
    assert r.code == 0
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    bad = tmp_path / "bad.rules"
    bad.write_text(Path(TRICKS).read_text(encoding="utf-8").replace("game little_tricks", "game other") +
                   "\nparam never: Player where never == 3 cite \"1 Players\" \"for three or four players\"\n")
    r = run_cli("docs", TRICKS, str(bad), "--out", str(out), "--games", "2")
    assert r.code == 2 and "error[E305]" in r.err, r.err
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_out_that_cannot_be_a_folder(tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x")
    r = run_cli("docs", TRICKS, "--out", str(f), "--games", "2")
    assert r.code == 2 and "error[E008]" in r.err and f.read_text() == "x"
    r = run_cli("docs", TRICKS, "--out", str(f / "sub"), "--games", "2")
    assert r.code == 2 and "error[E008]" in r.err and "Traceback" not in r.err


def test_difference_report_is_included(tmp_path):
    diff = tmp_path / "de-vs-it.md"
    diff.write_text("<!-- written by rulespec diff -->\n# de vs it\n\nThe **Italian** edition scores ties differently.\n")
    r, out = _gen(tmp_path, "--diff", str(diff), games="2")
    assert r.code == 0
    # a file that is no page of `rulespec diff --markdown` (a spec, notes) is refused, where it
    # was included in the site as it was
    notes = tmp_path / "notes.md"
    notes.write_text("hi\n")
    r2, _out = _gen(tmp_path, "--diff", str(notes), games="2")
    assert r2.code == 2 and f"{notes}:1:1: error[E009]" in r2.err and "not a difference report" in r2.err, r2
    page = (out / "differences.md").read_text()
    assert "## de\\-vs\\-it\\.md" in page and "### de vs it" in page and "The **Italian** edition" in page


HOSTILE = '''
/// <script>alert(1)</script> *star* _under_ |pipe| [link](javascript:alert(1)) `tick` # hash
game hostile "<script>alert(1)</script> *Bold* | [x](y)"
edition en "<img src=x onerror=alert(1)> _e_"
players 2..2 cite "<script>alert(2)</script>" "*q* | `t` [l](u)"
var a: 0..9
init cite "S <b>" "_s_" { a := 0 }
/// <script>alert(3)</script> | *doc*
action go(p: Player) by p cite "<script>alert(4)</script>" "|x|" when a < 5 {
  a += 1
  if a == 3 { undecided "<script>alert(5)</script> *gap* | `t`" cite "G" "<i>g</i>" }
}
end done cite "E" "e": a == 5
/// <script>alert(6)</script>
invariant small cite "I" "i" expect violated "<script>alert(7)</script> **why**": a < 3
'''


def test_spec_text_is_escaped(tmp_path):
    spec = tmp_path / "hostile.rules"
    spec.write_text(HOSTILE)
    r, out = _gen(tmp_path, spec=str(spec), games="3")
    assert r.code == 0, r
    for page in out.rglob("*.md"):
        html = _html(page)
        assert "<script" not in html and "<img src=\"x\"" not in html and "<img src=x" not in html and "<b>" not in html and "<i>g" not in html, page
        assert 'href="javascript' not in html and "href=\"y\"" not in html and 'href="u"' not in html, page
        assert not re.search(r"<(em|strong)>(star|under|Bold|q|why|gap|doc|e|s)</", html), page
        assert "<code>t</code>" not in html and "<code>tick</code>" not in html, page
    overview = _html(out / "index.md")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; *Bold* | [x](y)" in overview
    rules = _html(out / "hostile" / "en" / "rules.md")
    # the table keeps its columns: the pipe in the citation is text
    assert "§ &lt;script&gt;alert(4)&lt;/script&gt;: “|x|”" in rules
    gaps = _html(out / "hostile" / "en" / "gaps.md")
    assert "“&lt;script&gt;alert(5)&lt;/script&gt; *gap* | `t`”" in gaps


def test_every_node_kind_spec_gets_pages(tmp_path):
    """A spec that faults at once and fails its scenarios still gets honest pages."""
    r, out = _gen(tmp_path, spec=str(ROOT / "tests" / "specs" / "prose" / "every_kind.rules"), games="5")
    assert r.code == 0, r
    page = (out / "kinds" / "spec" / "properties.md").read_text()
    assert "**fault, 2 players:**" in page and "**fails**" in page
    assert (out / "kinds" / "spec" / "gaps.md").read_text().count("**Undecided:**") == 1


def test_default_specs_are_the_shipped_ones():
    found = sorted(os.path.abspath(p) for p in default_specs(str(ROOT)))
    shipped = sorted(str(p) for p in (ROOT / "examples").rglob("*.rules")) + \
        sorted(str(p) for p in (ROOT / "spec").rglob("*.rules"))
    assert found == sorted(shipped)


def test_json_output(tmp_path):
    r, out = _gen(tmp_path, "--json", games="2")
    doc = json.loads(r.out)
    assert doc["ok"] is True and "little_tricks/en/rules.md" in doc["pages"] and doc["specs"] == [TRICKS]


def test_real_verify_and_diff_output_feed_the_pages(tmp_path):
    """What `rulespec verify --json` and `rulespec diff --markdown` write is what docs reads."""
    editions = ROOT / "tests" / "specs" / "editions"
    en, xx = str(editions / "en.rules"), str(editions / "xx.rules")
    # (no directed search: what docs reads does not depend on it, and its moves took 14 of 22 s)
    r = run_cli("verify", en, "--json", "--timeout", "10", "--games", "10", "--explore", "0")
    assert r.code in (0, 1), r
    results = tmp_path / "verify.json"
    results.write_text(r.out, encoding="utf-8")
    kinds = {x["kind"] for s in json.loads(r.out)["specs"] for x in s["results"]}
    assert {"invariant", "deadlock", "fault"} <= kinds
    report = tmp_path / "diff.md"
    assert run_cli("diff", en, xx, "--games", "0", "--markdown", str(report)).code == 1
    r, out = _gen(tmp_path, "--results", str(results), "--diff", str(report), spec=en)
    assert r.code == 0, r
    page = "\n".join(p.read_text(encoding="utf-8") for p in out.rglob("*.md"))
    assert "proved" in page
    differences = (out / "differences.md").read_text(encoding="utf-8")
    assert "`take`" in differences and "changes scoring" in differences


def test_a_wrong_value_in_a_results_file_is_shown_at_its_line(tmp_path):
    # the value was named by its JSON path alone, with no line; a key given twice is its last value
    # (as json.loads takes it), and a wrong step of a trace is shown where it is
    res = tmp_path / "bad.json"
    res.write_text('{"ok": true,\n "specs": [\n  {"spec": "x.rules", "game": "g", "edition": null,\n'
                   '   "results": [\n    {"property": "p", "kind": "invariant", "players": 3, "status": "proved"},\n'
                   '    {"property": "q", "kind": "invariant", "players": 3,\n'
                   '     "status": "provd", "status": "probably"}\n   ]}\n ]}\n')
    r, _out = _gen(tmp_path, "--results", str(res))
    assert r.code == 2 and f"{res}:7:35: error[E009]" in r.err and "specs[0].results[1]" in r.err, r
    assert '"status": "probably"}\n     |                                   ^^^^^^^^^^\n' in r.err, r.err
    res.write_text('{"specs": [{"game": "g", "results": [{"property": "p", "kind": "invariant", "players": 3,\n'
                   '  "status": "violated", "trace": {"steps": [{"move": "m()"},\n    7]}}]}]}')
    r, _out = _gen(tmp_path, "--results", str(res))
    assert r.code == 2 and f"{res}:3:5: error[E009]" in r.err and "steps[1]: expected a step" in r.err, r


def _results_text(spec: str, game: str, *records: str) -> str:
    """A verify results file with one record a line: the first record on line 5, the next on 6, ..."""
    return ('{"ok": true,\n "specs": [\n  {"spec": ' + json.dumps(spec) + ', "game": "' + game + '", "edition": "en",\n'
            '   "results": [\n' + ",\n".join(f"    {r}" for r in records) + "\n   ]}\n ]}\n")


def test_results_of_another_game_are_refused(tmp_path):
    # they were left out without a word (exit 0, statuses from the simulations)
    res = tmp_path / "verify.json"
    res.write_text(_results_text(TRICKS, "little_tricks",
                                 '{"property": "cards_conserved", "kind": "invariant", "players": 3, "status": "proved"}'))
    r, out = _gen(tmp_path, "--results", str(res), spec=WANDS)
    assert r.code == 2 and f"{res}:3:{len(TRICKS) + 24}: error[E009]" in r.err, r
    assert f"the results are for little_tricks/en ({TRICKS}), not for the spec documented: tug_of_wands/en" in r.err
    assert '^^^^^^^^^^^^^^^\n  hint: pass the results of `rulespec verify SPEC --json` of this spec' in r.err, r.err
    assert "Traceback" not in r.err and not out.exists()


@pytest.mark.parametrize("record, col, message, hint", [
    ('{"property": "no_such_prop", "kind": "invariant", "players": 99, "status": "violated"}', 18,
     'specs[0].results[1]: "no_such_prop" is not a property of little_tricks/en', "its properties are cards_conserved"),
    ('{"property": "cards_conserve", "kind": "invariant", "players": 3, "status": "proved"}', 18,
     'specs[0].results[1]: "cards_conserve" is not a property of little_tricks/en',
     "hint: did you mean 'cards_conserved'?"),
    ('{"property": "enabled:name_trum", "kind": "action", "players": 3, "status": "unreachable"}', 18,
     '"enabled:name_trum" is not a property', "hint: did you mean 'enabled:name_trump'?"),
    ('{"property": "cards_conserved", "kind": "invariant", "players": 99, "status": "violated"}', 69,
     "specs[0].results[1]: 99 players, but little_tricks/en", "run `rulespec verify --json` again"),
])
def test_a_result_that_does_not_fit_the_spec_is_refused(tmp_path, record, col, message, hint):
    # it was taken: every real property "not checked", the stray result "violated" under "Other checks"
    res = tmp_path / "verify.json"
    res.write_text(_results_text(TRICKS, "little_tricks",
                                 '{"property": "cards_conserved", "kind": "invariant", "players": 3, "status": "proved"}',
                                 record))
    r, out = _gen(tmp_path, "--results", str(res))
    assert r.code == 2 and f"{res}:6:{col}: error[E009]" in r.err and message in r.err and hint in r.err, r
    assert f" 6 |     {record}\n" in r.err and f" | {' ' * (col - 1)}^" in r.err, r.err
    assert "Traceback" not in r.err and not out.exists()


def test_results_for_several_specs_and_verify_checks_are_taken(tmp_path):
    # one results file for the specs of one run (another spec's entry, documented or not, is
    # fine), with the checks verify adds to the spec's properties
    other = json.loads(_results_text(WANDS, "tug_of_wands",
                                     '{"property": "whatever", "kind": "invariant", "players": 9, "status": "proved"}'))
    doc = json.loads(_results_text(
        TRICKS, "little_tricks",
        '{"property": "cards_conserved", "kind": "invariant", "players": 4, "status": "proved"}',
        '{"property": "no_runtime_errors", "kind": "fault", "players": 3, "status": "proved"}',
        '{"property": "no_deadlock", "kind": "deadlock", "players": 3, "status": "bounded", "depth": 8}',
        '{"property": "enabled:name_trump", "kind": "action", "players": 3, "status": "unreachable"}',
        '{"property": "gap:12:3", "kind": "undecided", "players": 3, "status": "unreachable"}'))
    doc["specs"].insert(0, {**other["specs"][0], "game": "no_such_game", "spec": "elsewhere/x.rules"})
    res = tmp_path / "verify.json"
    res.write_text(json.dumps(doc))
    r, out = _gen(tmp_path, "--results", str(res), games="2")
    assert r.code == 0, r
    assert f"property statuses from {res}" in r.out
    page = (out / "little_tricks" / "en" / "properties.md").read_text()
    assert "enabled:name\\_trump" in page and "gap:12:3" in page and "`no_deadlock`" in page
    r = run_cli("docs", TRICKS, WANDS, "--out", str(tmp_path / "two"), "--games", "2", "--results", str(res))
    assert r.code == 0, r
    assert f"{TRICKS}: property statuses from {res}" in r.out and \
        f"{WANDS}: property statuses from 2 simulated games" in r.out
