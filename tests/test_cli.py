"""The command line: commands, exit codes, JSON, hostile input, progress, play from a pipe."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import EXAMPLES, FAULTY_CONST, ROOT, run_cli, simulated_trace

TRICKS = str(next(p for p in EXAMPLES if p.name == "little_tricks.rules"))


def copy_rulebook(folder):
    """little_tricks' rulebook next to a copy of it: with $RULESPEC_RULEBOOKS set (as in CI) a missing one is E307."""
    shutil.copy(os.path.join(os.path.dirname(TRICKS), "rulebook.md"), folder)


def test_check_examples_ok():
    r = run_cli("check", str(ROOT / "examples"))
    assert r.code == 0, r
    assert r.out.count(": ok") == len(EXAMPLES)


def test_check_json_shape():
    r = run_cli("check", "--json", TRICKS)
    doc = json.loads(r.out)
    assert doc["ok"] is True and r.code == 0
    f = doc["files"][0]
    assert set(f) == {"path", "ok", "rulebook", "diagnostics", "scenarios"}
    assert all(set(s) == {"name", "ok", "message", "where", "cite", "moves"} for s in f["scenarios"])


def test_options_may_come_between_the_files():
    """`check a --json b`: argparse alone took `a` as the files and refused `b` (exit 2)."""
    first, second = (str(p) for p in EXAMPLES[:2])
    r = run_cli("check", first, "--json", second)
    assert r.code == 0, r
    assert [f["path"] for f in json.loads(r.out)["files"]] == [first, second]
    r = run_cli("check", "--json", first, second)
    assert [f["path"] for f in json.loads(r.out)["files"]] == [first, second]


def test_failing_scenario_exits_1(tmp_path):
    text = open(TRICKS).read().replace("expect round == 2", "expect round == 3")
    path = tmp_path / "t.rules"
    path.write_text(text)
    copy_rulebook(tmp_path)
    r = run_cli("check", str(path))
    assert r.code == 1 and "exact_bid_scores FAILED" in r.out and "round == 3" in r.out


def test_simulate_text_and_json():
    r = run_cli("simulate", TRICKS, "--players", "3", "--games", "20", "--seed", "5")
    assert r.code == 0 and "finished       20 of 20" in r.out and "moves per game" in r.out
    j = run_cli("simulate", TRICKS, "--players", "3", "--games", "20", "--seed", "5", "--json")
    doc = json.loads(j.out)
    run = doc["runs"][0]
    assert {"spec", "players", "seed", "games", "finished", "moves", "ends", "findings", "reachable", "stats"} <= set(run)
    assert run["finished"] == 20 and set(run["moves"]) == {"min", "median", "max"}
    assert all("trace" in f for f in run["findings"])


def test_simulate_avoid_gaps(tmp_path):
    from conftest import MINI
    path = tmp_path / "gap.rules"
    path.write_text(MINI.replace("draw 1 from stock to hand[p]",
                                 'draw 1 from stock to hand[p]\n  if size(hand[p]) == 3 { undecided "three chips" cite "Play" "x" }'))
    r = run_cli("simulate", str(path), "--players", "2", "--games", "10", "--avoid-gaps")
    assert r.code == 0 and "finished       10 of 10" in r.out and "(stepped around in " in r.out, r
    run = json.loads(run_cli("simulate", str(path), "--players", "2", "--games", "10", "--avoid-gaps", "--json").out)["runs"][0]
    assert run["avoid_gaps"] is True and sum(run["avoided"].values()) == run["findings"][0]["count"]


def test_a_constant_that_faults_is_a_run_time_error_of_the_setup(tmp_path):
    # K(0) is outside K's range: each game's setup stops there. simulate and verify stopped with
    # exit 3 (the parameters of a game whose setup faulted were drawn again, and the constant
    # evaluated again, outside the handler)
    path = tmp_path / "c.rules"
    path.write_text(FAULTY_CONST.replace("v: 0..1", "v: 1..1"))
    r = run_cli("simulate", str(path), "--games", "2")
    assert r.code == 1 and "stopped by     fault 2" in r.out and "a field of K is outside its range" in r.out \
        and f"{path}:5:" in r.out, r
    doc = json.loads(run_cli("verify", str(path), "--json").out)
    (res,) = [x for x in doc["specs"][0]["results"] if x["property"] == "no_runtime_errors"]
    assert res["status"] == "violated" and "outside its range" in res["message"], res
    # with a parameter (drawn before the constant faults), and its saved trace, which has no state,
    # replays (replay refused it: no "states")
    path.write_text(FAULTY_CONST.replace("v: 0..1", "v: 1..1").replace("card K", "param q: 0..1\ncard K"))
    r = run_cli("simulate", str(path), "--games", "1", "--save-traces", str(tmp_path / "tr"))
    assert r.code == 1 and "q = " in r.out, r
    (saved,) = (tmp_path / "tr").iterdir()
    r = run_cli("replay", str(path), str(saved))
    assert r.code == 1 and "run-time error" in r.out and "outside its range" in r.out, r
    r = run_cli("fuzz", str(path), "--examples", "3", "--no-db")
    assert r.code == 1 and "run-time error in the setup: a field of K is outside its range" in r.out, r


def test_simulate_every_player_count_by_default():
    doc = json.loads(run_cli("simulate", TRICKS, "--games", "3", "--json").out)
    assert [r["players"] for r in doc["runs"]] == [3, 4]


def test_simulate_is_quiet_when_piped():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "verifier", "simulate", TRICKS, "--games", "30", "--players", "3"],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    assert p.returncode == 0 and p.stderr == ""


def test_play_from_a_pipe():
    r = run_cli("play", TRICKS, "--players", "3", "--seed", "2", stdin="1\n1\n1\n1\nr\nq\n")
    assert r.code == 0, r
    assert "name_trump" in r.out and "> make_bid" in r.out and "to choose" in r.out
    # the hand of the player to move is shown, the others' only as counts
    assert "10 cards" in r.out


def test_play_whole_game_with_random_moves(tmp_path):
    trace = tmp_path / "game.itf.json"
    r = run_cli("play", TRICKS, "--players", "3", "--seed", "2", "--save-trace", str(trace), stdin="r\n" * 200)
    assert r.code == 0 and "The game is over: game_over" in r.out
    rr = run_cli("replay", TRICKS, str(trace))
    assert rr.code == 0 and "game_over" in rr.out


def test_play_bad_answer_from_a_pipe_exits_2():
    # the answer is shown at its line and column of the input, with the line and a caret under it
    r = run_cli("play", TRICKS, "--players", "3", stdin="1\n  zzz\n")
    assert r.code == 2 and "<stdin>:2:3: error[E006]: 'zzz' is not a move" in r.err, r
    assert "   2 |   zzz\n     |   ^^^\n" in r.err and "hint:" in r.err


def test_play_a_superscript_digit_is_not_a_move():
    # '²' (AltGr+2 on a German keyboard) passes str.isdigit but not int(): exit 3 before
    r = run_cli("play", TRICKS, "--players", "3", stdin="1\n\u00b2\n")
    assert r.code == 2 and "<stdin>:2:1: error[E006]" in r.err, r


def test_play_ctrl_c_at_the_prompt_keeps_the_game_played(tmp_path, monkeypatch):
    # Ctrl-C is how people leave a prompt: the moves played so far are saved, as q saves them
    class Keys:
        def __init__(self):
            self.lines = ["1\n", "2\n"]

        def isatty(self):
            return False

        def readline(self):
            if not self.lines:
                raise KeyboardInterrupt
            return self.lines.pop(0)

    trace = tmp_path / "game.itf.json"
    monkeypatch.setattr(sys, "stdin", Keys())
    from verifier.cli import main
    assert main(["play", TRICKS, "--players", "3", "--save-trace", str(trace)]) == 130
    rr = run_cli("replay", TRICKS, str(trace))
    assert rr.code == 0 and "replayed 2 moves" in rr.out, rr


def test_play_refuses_to_overwrite(tmp_path):
    existing = tmp_path / "keep.json"
    existing.write_text("precious")
    r = run_cli("play", TRICKS, "--save-trace", str(existing), stdin="q\n")
    assert r.code == 2 and existing.read_text() == "precious"


@pytest.mark.parametrize("args, message", [
    (["simulate", TRICKS, "--players", "9"], "for 3 to 4 players, not 9"),
    (["simulate", TRICKS, "--games", "-1"], "not a positive number"),
    (["simulate", TRICKS, "--games", "lots"], "not a whole number"),
    (["verify", TRICKS, "--timeout", "soon"], "'soon' is not a number of seconds"),
    (["verify", TRICKS, "--property-timeout", "0"], "0 is not a positive number of seconds"),
    (["verify", TRICKS, "--property-timeout", "nan"], "nan is not a positive number of seconds"),
    (["verify", TRICKS, "--timeout", "0.0004"], "0.0004 s is outside the time limits the solver takes"),
    (["diff", TRICKS, TRICKS, "--timeout", "5000000"], "5000000 s is outside the time limits the solver takes"),
    (["frobnicate"], "invalid choice"),
    (["simulate"], "required"),
    (["check", "--no-such-flag", TRICKS], "unrecognized arguments"),
])
def test_usage_errors_exit_2(args, message):
    r = run_cli(*args)
    assert r.code == 2 and message in r.err and "error[E006]" in r.err and "Traceback" not in r.err


def test_time_limits_take_seconds_with_decimals():
    from verifier.cli import build_parser

    args = build_parser().parse_args(["verify", TRICKS, "--timeout", "2.5", "--property-timeout", "0.5"])
    assert (args.timeout, args.property_timeout) == (2.5, 0.5)


def test_a_player_count_the_spec_does_not_allow_points_at_its_players_declaration(tmp_path):
    line = next(i for i, text in enumerate(open(TRICKS, encoding="utf-8"), 1) if text.startswith("players "))
    for command in ("simulate", "verify"):
        r = run_cli(command, TRICKS, "--players", "9")
        assert r.code == 2 and f"{TRICKS}:{line}:1: error[E006]: " in r.err, r.err
        assert f"{line} | players " in r.err and "^^^" in r.err and "hint: use --players 3 to 4" in r.err
    # two editions: the one whose declaration sets the bound crossed (the copy allows 2 players too)
    wide = tmp_path / "wide.rules"
    wide.write_text(open(TRICKS, encoding="utf-8").read().replace("players 3..4", "players 2..4"), encoding="utf-8")
    for a, b in ((str(wide), TRICKS), (TRICKS, str(wide))):
        r = run_cli("diff", a, b, "--players", "2")
        assert r.code == 2 and f"{TRICKS}:{line}:1: error[E006]: both editions are played by 3 to 4 players" in r.err, \
            r.err


def _hostile(tmp_path):
    d = tmp_path
    (d / "empty.rules").write_text("")
    (d / "random.rules").write_bytes(os.urandom(4096))
    (d / "latin1.rules").write_bytes("game caf\xe9\n".encode("latin-1"))
    (d / "huge.rules").write_text("// x\n" * 2_100_000)
    (d / "parens.rules").write_text("game g\nconst x = " + "(" * 20000 + "\n")
    (d / "nested.rules").write_text("game g\nconst x = " + "(" * 20000 + "1" + ")" * 20000 + "\n")
    (d / "folder").mkdir()
    (d / "nul.rules").write_bytes(b"game g\x00\n")
    return {
        "missing": (str(d / "nope.rules"), "E001"),
        "directory": (str(d / "folder"), "E001"),
        "empty": (str(d / "empty.rules"), "E004"),
        "random bytes": (str(d / "random.rules"), "E00"),
        "not utf-8": (str(d / "latin1.rules"), "E002"),
        "10 MB": (str(d / "huge.rules"), "E003"),
        "20000 open parentheses": (str(d / "parens.rules"), "E005"),
        "20000 nested parentheses": (str(d / "nested.rules"), "E005"),
        "NUL bytes": (str(d / "nul.rules"), "E002"),
    }


@pytest.mark.parametrize("case", ["missing", "directory", "empty", "random bytes", "not utf-8", "10 MB",
                                  "20000 open parentheses", "20000 nested parentheses", "NUL bytes"])
@pytest.mark.parametrize("command", ["check", "simulate", "play"])
def test_hostile_input(tmp_path, case, command):
    path, code = _hostile(tmp_path)[case]
    r = run_cli(command, path, stdin="q\n")
    assert r.code == 2, r
    assert "Traceback" not in r.err + r.out
    assert f"error[{code}" in r.err


def test_hostile_input_in_a_real_process(tmp_path):
    """The same, through the installed entry point: exit 2 and no traceback."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for path, _code in _hostile(tmp_path).values():
        p = subprocess.run([sys.executable, "-m", "verifier", "check", path], capture_output=True, text=True, env=env)
        assert p.returncode == 2 and "Traceback" not in p.stderr, (path, p.stderr[-500:])


def test_help_lists_commands():
    r = run_cli("--help") if False else None
    p = subprocess.run([sys.executable, "-m", "verifier", "--help"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    for cmd in ("check", "test", "simulate", "replay", "play", "docs"):
        assert cmd in p.stdout
    assert r is None


# Bad input a helper's fuzzer of the command line found crashing (exit 3), or answered wrongly
def test_bad_input_found_by_fuzzing(tmp_path):
    spec = tmp_path / "t.rules"
    spec.write_text(TICK := 'game g\nplayers 2..2 cite "S" "two"\nvar x: 0..9\ninit cite "S" "setup" { x := 1 }\n'
                    '/// a.\naction a(p: Player) by p cite "A" "a" when x == 1 { x := x + 1 }\n')
    # an integer of more than 4,300 digits (Python's conversion limit): E207 at the literal
    huge = tmp_path / "huge.rules"
    huge.write_text(TICK.replace("x := 1 }", "x := 1" + "0" * 4300 + " }"))
    r = run_cli("check", str(huge))
    assert r.code == 2 and "huge.rules:4:30: error[E207]: an integer of 4,301 digits" in r.err, r
    # ... beside a syntax error, and in `players` (exit 3: the transformer's error escaped)
    huge.write_text(TICK.replace("x := 1 }", "x := 1" + "0" * 1000 + " }").replace("x + 1 }", "x = 2 }"))
    r = run_cli("check", str(huge))
    assert r.code == 2 and "E207" in r.err and "E010" in r.err, r
    huge.write_text(TICK.replace("players 2..2", "players 2..2" + "0" * 5000))
    r = run_cli("check", str(huge))
    assert r.code == 2 and "huge.rules:2:1: error[E207]: an integer of 5,001 digits" in r.err, r
    # a first state that is not an object; JSON nested too deep; a number too long for Python
    for text, message in [('{"#meta": {"players": 2}, "states": [1]}', "state 0 is not an object"),
                          ('{"#meta": {"players": 2}, "states": [[]]}', "state 0 is not an object"),
                          ("[" * 30000 + "]" * 30000, "nested too deep"),
                          ('{"#meta": {"players": 2}, "states": [' + "1" * 5000 + "]}", "more than 4,300 digits")]:
        trace = tmp_path / "bad.json"
        trace.write_text(text)
        r = run_cli("replay", str(spec), str(trace))
        assert r.code == 2 and message in r.err and "Traceback" not in r.err, (message, r)
        r = run_cli("docs", str(spec), "--out", str(tmp_path / "site"), "--games", "1", "--results", str(trace))
        assert r.code == 2 and "E009" in r.err, r
    # a trace that is not UTF-8: where
    trace.write_bytes(b'{"a": "\xff"}')
    r = run_cli("replay", str(spec), str(trace))
    assert r.code == 2 and "bad.json:1:8: error[E002]" in r.err and "byte 0xff at offset 7" in r.err, r
    # a seed that is not text; a negative number of games or moves
    assert "the seed is not UTF-8 text" in run_cli("simulate", str(spec), "--seed", "\udcff").err
    for args in [("verify", str(spec), "--games", "-1"), ("verify", str(spec), "--explore", "-1"),
                 ("diff", str(spec), str(spec), "--games", "-5")]:
        r = run_cli(*args)
        assert r.code == 2 and "is negative (0: none)" in r.err, (args, r)
    # where the trace would go is checked before the games: a folder under a file; a missing folder
    r = run_cli("simulate", str(spec), "--games", "1", "--save-traces", str(spec / "sub"))
    assert r.code == 2 and "E008" in r.err and "is a file, not a folder" in r.err, r
    r = run_cli("play", str(spec), "--save-trace", str(tmp_path / "nowhere" / "t.json"), stdin="r\n" * 5)
    assert r.code == 2 and "E008" in r.err and "does not exist" in r.err and r.out == "", r
    link = tmp_path / "dangling.json"
    link.symlink_to(tmp_path / "nowhere" / "x.json")
    for target in (str(link), str(tmp_path / "newname") + "/"):
        r = run_cli("play", str(spec), "--save-trace", target, stdin="r\n" * 5)
        assert r.code == 2 and r.out == "", r
    r = run_cli("simulate", str(spec), "--games", "1", "--save-traces", str(link))
    assert r.code == 2 and "is a link to nothing" in r.err, r
    # --json: the diagnostics as one document on stdout, besides stderr's
    r = run_cli("simulate", str(spec), "--players", "9", "--js")  # (argparse takes the abbreviation)
    doc = json.loads(r.out)
    assert r.code == 2 and doc["ok"] is False and doc["diagnostics"][0]["code"] == "E006" \
        and doc["diagnostics"][0]["span"]["line"] == 2 and "not 9" in r.err, r


def test_a_saved_trace_of_a_run_time_error_replays_the_move_that_faults(tmp_path):
    # the ITF file held the states before the faulting move only: replay said "every move legal"
    spec, saved = simulated_trace(tmp_path, "x := 1", "x := x / (x - x)", when="x == 1")
    r = run_cli("replay", str(spec), str(saved))
    assert r.code == 1 and "replayed 1 move: run-time error of the spec at move 1: division by zero" in r.out, r
    # against rules where that move plays through, the trace does not fit
    fixed = tmp_path / "fixed.rules"
    fixed.write_text(spec.read_text().replace("x / (x - x)", "x / 1"))
    r = run_cli("replay", str(fixed), str(saved))
    assert r.code == 2 and "the trace's last move, a(P0), stops the game (fault: division by zero), but it plays " \
        "through here" in r.err, r
    # rules where an undecided point stops it: not the trace's run-time error
    fixed.write_text(spec.read_text().replace("x := x / (x - x)", 'undecided "u" cite "A" "a"'))
    r = run_cli("replay", str(fixed), str(saved))
    assert r.code == 2 and "stops the game (fault), but an undecided point stops it here" in r.err, r
    # rules whose setup stops, against a trace with states
    fixed.write_text(spec.read_text().replace("{ x := 1 }", "{ x := 1  x := x / (x - x) }"))
    r = run_cli("replay", str(fixed), str(saved))
    assert r.code == 2 and "the trace has states, but the setup stops at a run-time error" in r.err, r
    # play's saved trace keeps the move too (it kept the moves before it)
    r = run_cli("play", str(spec), "--save-trace", str(tmp_path / "played.json"), stdin="1\n")
    assert r.code == 1, r
    r = run_cli("replay", str(spec), str(tmp_path / "played.json"))
    assert r.code == 1 and "run-time error of the spec at move 1: division by zero" in r.out, r


def test_simulate_avoid_gaps_counts_a_gap_stepped_around_then_met(tmp_path):
    # at x == 0 a game that picks a steps around its gap and plays b; at x == 1 only a is left: the
    # gap stops every game, some of them after stepping around it (the count subtracted those)
    path = tmp_path / "g.rules"
    path.write_text("""
game g "G"
players 2..2 cite "P" "p"
var x: 0..2
init cite "P" "p" { x := 0 }
/// A.
action a() cite "P" "p" when x < 2 { undecided "a" cite "P" "p" }
/// B.
action b() cite "P" "p" when x == 0 { x := 1 }
end fin cite "P" "p": x == 2
""")
    r = run_cli("simulate", str(path), "--games", "5", "--avoid-gaps")
    run = json.loads(run_cli("simulate", str(path), "--games", "5", "--avoid-gaps", "--json").out)["runs"][0]
    around = sum(run["avoided"].values())
    assert 0 < around < 5, run  # the seed makes some games step around it first
    assert "stopped by     gap 5" in r.out and f"in 5 of 5 games (stepped around in {around}, stopped in 5)" in r.out, r.out
    assert run["stopped"] == {"gap": 5} and list(run["halted"].values()) == [5], run


@pytest.mark.parametrize("command", [["simulate", "--games", "2"], ["fuzz", "--no-db", "--examples", "2"], ["play"],
                                     ["diff", "SPEC", "--games", "2", "--timeout", "2"],
                                     ["verify", "--games", "2", "--jobs", "1"], ["verify", "--games", "2", "--jobs", "2"]])
def test_a_parameter_no_draw_meets_is_bad_input_in_every_command(tmp_path, command):
    # no value of 0..9 doubled is 7: every command that draws the parameters stops with E305 at the
    # parameter (fuzz, play and diff stopped with an internal error, exit 3)
    from conftest import MINI
    path = tmp_path / "p.rules"
    path.write_text(MINI + '\nparam never: 0..9 where never * 2 == 7 cite "Play" "x"\n')
    args = [command[0], str(path)] + [str(path) if a == "SPEC" else a for a in command[1:]]
    r = run_cli(*args, stdin="q\n") if command[0] == "play" else run_cli(*args)
    assert r.code == 2 and "error[E305]" in r.err, r
    assert ("players (Z3 finds none)" if command[0] == "verify" else "parameter never with 2 players") in r.err, r
    assert f"{path}:" in r.err and "Traceback" not in r.err + r.out


def test_a_closed_pipe_is_not_success_and_bad_input_stays_exit_2(tmp_path):
    # `rulespec check bad.rules 2>&1 | head -n 3` exited 0 (success) under pipefail; a closed stderr
    # turned bad input's exit 2 into 1 and lost the JSON diagnostics on stdout
    from conftest import MINI
    bad = tmp_path / "bad.rules"
    bad.write_text(MINI + "".join(f'\n/// I.\ninvariant i{k} cite "Play" "x": zzz == {k}\n' for k in range(3000)))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "verifier"]
    p = subprocess.Popen(cmd + ["check", str(bad)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    p.stdout.read(100)
    p.stdout.close()
    assert p.wait(timeout=120) == 141
    p = subprocess.Popen(cmd + ["simulate", str(bad), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env, cwd=ROOT)
    p.stderr.read(100)
    p.stderr.close()
    out = p.stdout.read()
    assert p.wait(timeout=120) == 2
    assert json.loads(out)["ok"] is False and len(json.loads(out)["diagnostics"]) >= 3000


def test_output_names_that_cannot_be_files_are_refused_before_the_work(tmp_path):
    # an empty name was taken as the option not given (no page, no traces, no store, silently);
    # --markdown dir/ wrote a file named dir
    for args in (["simulate", TRICKS, "--games", "1", "--save-traces", ""],
                 ["play", TRICKS, "--save-trace", ""],
                 ["verify", TRICKS, "--answers", ""],
                 ["diff", TRICKS, TRICKS, "--markdown", ""],
                 ["docs", TRICKS, "--out", ""]):
        r = run_cli(*args, stdin="q\n")
        assert r.code == 2 and "error[E006]" in r.err and "an empty name" in r.err, (args, r)
    r = run_cli("diff", TRICKS, TRICKS, "--markdown", str(tmp_path / "reports") + "/")
    assert r.code == 2 and "error[E008]" in r.err and "is a folder" in r.err, r
    assert list(tmp_path.iterdir()) == []


def test_diff_keeps_its_page_elsewhere_where_a_file_of_the_user_s_was_made_while_it_ran(tmp_path, monkeypatch):
    # the target was judged only before the comparison: a file the user made there while it ran
    # was replaced. Now it is left as it is, the page kept in the temporary folder and told (E008,
    # exit 2) with the report; --json's document says so (it said "ok": true, with no diagnostics)
    from verifier import diff

    page = tmp_path / "r.md"
    compare = diff.compare

    def meanwhile(*args, **kwargs):
        report = compare(*args, **kwargs)
        page.write_text("my notes\n")
        return report
    monkeypatch.setattr(diff, "compare", meanwhile)
    r = run_cli("diff", TRICKS, TRICKS, "--games", "1", "--timeout", "2", "--markdown", str(page))
    assert r.code == 2 and "was not written by rulespec diff" in r.err and "little_tricks" in r.out, r
    assert page.read_text() == "my notes\n" and "written to" not in r.out
    kept = re.search(r"kept in '([^']+)'", r.err).group(1)
    assert open(kept).read().startswith("<!-- written by rulespec diff -->")
    os.remove(kept)
    page.unlink()
    r = run_cli("diff", TRICKS, TRICKS, "--games", "1", "--timeout", "2", "--markdown", str(page), "--json")
    doc = json.loads(r.out)
    assert r.code == 2 and doc["ok"] is False and doc["diagnostics"][0]["code"] == "E008" and "differences" in doc, r
    os.remove(re.search(r"kept in '([^']+)'", r.err).group(1))
    assert page.read_text() == "my notes\n"
    # a page that is ours again, or a new one: written, and the document's ok says whether the
    # editions differ (diff's document had no ok)
    page.unlink()
    monkeypatch.setattr(diff, "compare", compare)
    r = run_cli("diff", TRICKS, TRICKS, "--games", "1", "--timeout", "2", "--markdown", str(page), "--json")
    assert r.code == 0 and json.loads(r.out)["ok"] is True and page.read_text().startswith("<!--"), r


def test_simulate_s_document_says_a_trace_it_could_not_write(tmp_path, monkeypatch):
    # a trace the folder refused after the games (removed meanwhile) is kept elsewhere, exit 2: the
    # JSON document said "ok": true with no diagnostics; every finding has a trace_file (null
    # without --save-traces, where simulate left the key out and fuzz gave null)
    from verifier import commands

    faulty = tmp_path / "faulty.rules"
    faulty.write_text(FAULTY_CONST.replace("v: 0..1", "v: 1..1"))
    folder = tmp_path / "traces"
    folder.mkdir()
    write_new = commands.write_new

    def gone(paths, text, flag):
        if folder.exists():
            folder.rmdir()
        return write_new(paths, text, flag)
    monkeypatch.setattr(commands, "write_new", gone)
    r = run_cli("simulate", str(faulty), "--games", "2", "--save-traces", str(folder), "--json")
    doc = json.loads(r.out)
    assert r.code == 2 and doc["ok"] is False and doc["diagnostics"][0]["code"] == "E008", r
    kept = doc["runs"][0]["findings"][0]["trace_file"]
    assert kept in doc["diagnostics"][0]["message"] and os.path.exists(kept)
    os.remove(kept)
    r = run_cli("simulate", str(faulty), "--games", "2", "--json")
    assert [f["trace_file"] for f in json.loads(r.out)["runs"][0]["findings"]] == [None], r


def test_an_abbreviated_json_flag_gets_the_json_document_on_bad_input(tmp_path):
    r = run_cli("simulate", str(tmp_path / "missing.rules"), "--j")
    assert r.code == 2 and json.loads(r.out)["ok"] is False, r


def test_a_file_the_system_refuses_is_bad_input_not_an_internal_error(tmp_path, monkeypatch):
    # a name over 255 bytes (ENAMETOOLONG) and a folder the user may not read (EACCES, made here by
    # the walk that finds the .rules files, as root ignores permissions): exit 3 before; an
    # unreadable folder was "a directory with no .rules files in it"
    r = run_cli("check", str(tmp_path / ("a" * 300 + ".rules")))
    assert r.code == 2 and "error[E001]" in r.err and "File name too long" in r.err, r
    folder = tmp_path / "specs"
    folder.mkdir()

    def refuse(top, onerror=None, **_kw):
        onerror(PermissionError(13, "Permission denied", str(folder)))
        return iter(())
    monkeypatch.setattr(os, "walk", refuse)
    r = run_cli("check", str(folder))
    assert r.code == 2 and "error[E001]" in r.err and "Permission denied" in r.err, r


def test_test_k_that_matches_no_scenario_is_bad_input():
    # a misspelt filter ran nothing and passed (exit 0)
    r = run_cli("test", TRICKS, "-k", "must_folow_suit")
    assert r.code == 2 and "error[E006]" in r.err and "did you mean 'must_follow_suit'?" in r.err, r
    assert run_cli("test", TRICKS, "-k", "follow").code == 0


def test_a_quote_matches_a_rulebook_in_decomposed_umlauts_or_with_ligatures(tmp_path):
    # "für" as u + U+0308 and "first" with U+FB01 (as PDF and macOS text often has them): the same
    # words to a reader, and E306 before
    import unicodedata
    text = open(TRICKS, encoding="utf-8").read().replace(
        'cite "1 Players" "for three or four players"', 'cite "1 Players" "für drei oder vier; the first player"')
    book = open(os.path.join(os.path.dirname(TRICKS), "rulebook.md"), encoding="utf-8").read().replace(
        "for three or four players", unicodedata.normalize("NFD", "für drei oder vier") + "; the \ufb01rst player")
    (tmp_path / "t.rules").write_text(text, encoding="utf-8")
    (tmp_path / "rulebook.md").write_text(book, encoding="utf-8")
    r = run_cli("check", str(tmp_path / "t.rules"), "--no-scenarios")
    assert r.code == 0 and "citations checked" in r.out, r
    # but what reads differently does not match: "10²" is not "102" (NFKC would make it so)
    (tmp_path / "t.rules").write_text(text.replace("für drei oder vier; the first player", "102 players"), encoding="utf-8")
    (tmp_path / "rulebook.md").write_text(book.replace("; the \ufb01rst player", "; 10\u00b2 players"), encoding="utf-8")
    r = run_cli("check", str(tmp_path / "t.rules"), "--no-scenarios")
    assert r.code == 2 and "error[E306]" in r.err and "102 players" in r.err, r
    # a rulebook in Latin-1 is text: an ASCII quote is found in it (only a PDF or NUL bytes are not text)
    (tmp_path / "rulebook.md").write_bytes(book.replace("; the \ufb01rst player", "; 102 players").encode("latin-1",
                                                                                                     "replace"))
    r = run_cli("check", str(tmp_path / "t.rules"), "--no-scenarios")
    assert "error[E307]" not in r.err and "102 players" not in r.err, r


def test_verify_jobs_stops_its_workers_when_terminated(tmp_path):
    # SIGTERM to the main process alone (kill PID, a process manager): its workers ran on with no
    # parent to the end of their player count, then blocked for ever
    import signal
    import time
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "verifier", "verify", TRICKS, "--jobs", "2", "--games", "2"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT, start_new_session=True)

    def group() -> list[str]:  # the live processes of its process group, from /proc
        found = []
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if entry.isdigit() and fields[2] == str(p.pid) and fields[0] != "Z":  # (pgrp; not a zombie)
                found.append(entry)
        return found
    try:
        deadline = time.time() + 60
        while len(group()) < 3 and time.time() < deadline:  # the main process and its 2 workers
            time.sleep(0.2)
        assert len(group()) >= 3, group()
        time.sleep(1)
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=30) == 130
        deadline = time.time() + 10
        while group() and time.time() < deadline:
            time.sleep(0.2)
        assert group() == [], "workers left running"
        err = p.stderr.read().decode()
        assert "interrupted" in err and "Traceback" not in err, err  # (the workers end quietly)
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_rulebook_not_found_points_at_the_source_line(tmp_path):
    (tmp_path / "books").mkdir()
    spec = tmp_path / "t.rules"
    spec.write_text(open(TRICKS, encoding="utf-8").read())
    r = run_cli("check", str(spec), "--rulebooks", str(tmp_path / "books"))
    assert r.code == 2 and f"{spec}:7:1: error[E307]: rulebook 'rulebook.md' not found" in r.err, r
    assert 'source "rulebook.md"' in r.err and "^^^" in r.err


def test_a_link_to_nothing_is_said_so(tmp_path):
    # the hint was "did you mean 'dangling.rules'?", the link itself
    (tmp_path / "dangling.rules").symlink_to(tmp_path / "nowhere.rules")
    r = run_cli("check", str(tmp_path / "dangling.rules"))
    assert r.code == 2 and "is a link to nothing" in r.err and "did you mean" not in r.err, r
    assert "hint: point the link at a .rules file, or pass the file itself" in r.err, r
    # a device is not read either: said with a hint too
    if os.path.exists("/dev/null"):
        r = run_cli("check", "/dev/null")
        assert r.code == 2 and "'/dev/null' is not a regular file" in r.err and "hint: pass a .rules file" in r.err, r


def test_a_file_name_that_is_not_utf8_is_shown_escaped(tmp_path):
    # under a strict UTF-8 locale (de_DE.UTF-8) printing such a name was an internal error, exit 3
    name = os.fsdecode(b"caf\xe9.rules")
    (tmp_path / name).write_text(open(TRICKS, encoding="utf-8").read(), encoding="utf-8")
    copy_rulebook(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8:strict")
    for path, code in ((tmp_path / name, 0), (tmp_path / os.fsdecode(b"nothere\xe9.rules"), 2)):
        p = subprocess.run([sys.executable, "-m", "verifier", "check", "--no-scenarios", os.fsencode(path)],
                           capture_output=True, env=env, cwd=ROOT)
        assert p.returncode == code and b"\\udce9" in p.stdout + p.stderr, p


def test_an_unknown_option_points_at_the_command_s_help():
    r = run_cli("simulate", TRICKS, "--bogus")
    assert r.code == 2 and "unrecognized arguments: --bogus" in r.err and "see `rulespec simulate --help`" in r.err, r
    assert "see `rulespec --help`" in run_cli("--bogus").err


def test_the_caret_counts_wide_characters_as_two_columns(tmp_path):
    # six CJK characters before the error put the caret six columns left of it
    path = tmp_path / "wide.rules"
    path.write_text(open(TRICKS, encoding="utf-8").read().replace(
        "  trump := s\n", '  trump := s\n  let x = "漢字のカード" ;\n'), encoding="utf-8")
    r = run_cli("check", "--no-scenarios", str(path))
    line, caret = [x for x in r.err.splitlines() if " | " in x][:2]
    assert caret.index("^") == line.index('" ;') + 6 + 2, r.err  # the line's text: 6 wide characters before ';'


def test_a_rulebook_that_is_not_text_is_one_error_at_the_source_line(tmp_path):
    # a PDF named in `source` gave one E306 per citation (40 for little_tricks) and no word why
    spec = tmp_path / "t.rules"
    spec.write_text(open(TRICKS, encoding="utf-8").read())
    (tmp_path / "rulebook.md").write_bytes(b"%PDF-1.4\n\x00\x01\x02 stream")
    r = run_cli("check", "--no-scenarios", str(spec))
    assert r.code == 2 and r.err.count("error[") == 1 and f"{spec}:7:1: error[E307]" in r.err, r
    assert "not a text file" in r.err


def test_an_invalid_player_range_is_one_error(tmp_path):
    # players 4..3 gave the E208, then an E305 per scenario and an E207 per player literal (8 in all)
    path = tmp_path / "t.rules"
    path.write_text(open(TRICKS, encoding="utf-8").read().replace("players 3..4", "players 4..3"))
    r = run_cli("check", str(path))
    assert r.code == 2 and r.err.count("error[") == 1 and "error[E208]" in r.err, r


def test_fuzz_names_its_default_database_when_it_cannot_be_written(tmp_path, monkeypatch):
    # no --db was given, but the message said "--db: cannot write in ..."
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    r = run_cli("fuzz", TRICKS, "--examples", "1")
    assert r.code == 2 and "the example database (--db): cannot write in" in r.err and "--no-db" in r.err, r


def test_an_empty_spec_name_is_said_so():
    # '' is the current folder to the system: "'' is a directory, not a .rules file"
    for args in (["check", ""], ["simulate", ""]):
        r = run_cli(*args)
        assert r.code == 2 and "error[E001]: an empty file name" in r.err, r


def test_a_missing_spec_s_hint_compares_names_without_rules(tmp_path):
    # every spec name ends in .rules, which made nonexist.rules "close" to comment.rules
    for name in ("comment.rules", "little_tricks.rules"):
        (tmp_path / name).write_text("")
    r = run_cli("check", str(tmp_path / "nonexist.rules"))
    assert r.code == 2 and "did you mean" not in r.err, r
    r = run_cli("check", str(tmp_path / "litle_tricks.rules"))
    assert r.code == 2 and "did you mean 'little_tricks.rules'?" in r.err, r


def test_a_trace_can_be_piped_in(tmp_path):
    # `cat t.json | rulespec replay SPEC /dev/stdin` and `<(...)` are pipes, not regular files
    trace = tmp_path / "game.itf.json"
    assert run_cli("play", TRICKS, "--players", "3", "--save-trace", str(trace), stdin="r\n" * 20 + "q\n").code == 0
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "verifier", "replay", TRICKS, "/dev/stdin"], input=trace.read_bytes(),
                       capture_output=True, env=env, cwd=ROOT)
    assert p.returncode == 0 and b"replayed 20 moves" in p.stdout, p


def test_a_folder_inside_that_cannot_be_read_is_passed_over(tmp_path, monkeypatch):
    # someone else's folder inside the project: its .rules files are left out, the others checked
    (tmp_path / "a.rules").write_text(open(TRICKS, encoding="utf-8").read())
    copy_rulebook(tmp_path)
    walk = os.walk

    def walk_refusing_a_subfolder(top, onerror=None, **kw):
        onerror(PermissionError(13, "Permission denied", str(tmp_path / "theirs")))
        yield from walk(top, onerror=onerror, **kw)
    monkeypatch.setattr(os, "walk", walk_refusing_a_subfolder)
    r = run_cli("check", "--no-scenarios", str(tmp_path))
    assert r.code == 0 and "a.rules: ok" in r.out, r


def test_diff_writes_its_page_when_the_report_s_reader_went_away(tmp_path, monkeypatch):
    from verifier import diff
    page = tmp_path / "r.md"

    def closed(_report):
        raise BrokenPipeError
    monkeypatch.setattr(diff, "render_text", closed)
    r = run_cli("diff", TRICKS, TRICKS, "--games", "1", "--timeout", "2", "--markdown", str(page))
    assert r.code == 141 and page.exists() and "written by rulespec diff" in page.read_text(), r


def test_a_full_disk_is_an_output_that_cannot_be_written(monkeypatch):
    import errno

    from verifier import commands

    def full(_args):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(commands, "cmd_check", full)
    r = run_cli("check", TRICKS)
    assert r.code == 2 and "error[E008]: cannot write the output: No space left on device" in r.err, r


def test_a_trace_the_system_refuses_after_the_work_is_kept_elsewhere_and_said(tmp_path, monkeypatch, capsys):
    import io

    from verifier.cli import main

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    # play: a file of the chosen name made during the game (by another program) is left as it is,
    # and the game is kept in the temporary folder, said with E008 (exit 2)
    target = tmp_path / "race.json"

    class Racing(io.StringIO):
        def readline(self, *args):
            line = super().readline(*args)
            if line == "q\n":
                target.write_text("USER")
            return line
    monkeypatch.setattr("sys.stdin", Racing("1\nq\n"))
    assert main(["play", TRICKS, "--players", "3", "--save-trace", str(target)]) == 2
    err = capsys.readouterr().err
    (kept,) = (tmp_path / "tmp").iterdir()
    assert target.read_text() == "USER"
    assert f"error[E008]: --save-trace: cannot write '{target}': the file exists; the trace is kept in '{kept}' " \
           "instead" in err and "hint: move the trace where you want it" in err, err
    r = run_cli("replay", TRICKS, str(kept))
    assert r.code == 0 and "replayed 1 move" in r.out, r
    # simulate and fuzz: a name taken by a link to nothing is passed over (the next number), never followed
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "little_tricks-en-3p-step_limit.itf.json").symlink_to(tmp_path / "nowhere" / "x")
    r = run_cli("simulate", TRICKS, "--players", "3", "--games", "1", "--max-steps", "1", "--save-traces", str(folder))
    assert r.code == 1 and "Traceback" not in r.err, r
    assert (folder / "little_tricks-en-3p-step_limit-2.itf.json").is_file()
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc (a folder that takes no files)")
def test_a_folder_that_takes_no_files_is_refused_before_the_work():
    # /proc: the permissions allow root to write, the system does not: found by writing a file first
    for args in (["simulate", TRICKS, "--players", "3", "--games", "1", "--save-traces", "/proc/rulespec-x"],
                 ["fuzz", TRICKS, "--players", "3", "--examples", "1", "--no-db", "--save-traces", "/proc/rulespec-x"],
                 ["play", TRICKS, "--players", "3", "--save-trace", "/proc/rulespec-x.json"]):
        r = run_cli(*args, stdin="1\nq\n")
        assert r.code == 2 and "error[E008]" in r.err and "/proc/rulespec-x" in r.err and r.out == "", (args, r)
        assert "Traceback" not in r.err and "internal error" not in r.err


def test_write_new_keeps_what_the_system_refuses_in_the_temporary_folder(tmp_path, monkeypatch):
    from verifier.trace import write_new

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    path, problem = write_new([str(tmp_path / "no" / "such" / "t.json")], "TEXT", "--flag")
    assert open(path).read() == "TEXT" and os.path.dirname(path) == str(tmp_path)
    assert problem.code == "E008" and "cannot write" in problem.message and "No such file or directory" in \
        problem.message and path in problem.message
    assert problem.hint == "choose a folder you can write in, and move the trace there"


def test_control_characters_the_user_wrote_are_shown_not_sent_to_the_terminal(tmp_path):
    # a spec line with ESC, BEL and NUL; a move typed with ESC: each shown as its picture, one
    # character for one, so that the caret stays under what it points at
    spec = tmp_path / "esc.rules"
    spec.write_bytes(b'game x "a\x1b[31mRED\x1b[0m" \x07 \x00 zz\n')
    r = run_cli("check", str(spec))
    assert r.code == 2 and not any(c in r.err for c in "\x1b\x07\x00"), r
    assert "1:26: error[E002]" in r.err
    line, carets = [x for x in r.err.splitlines() if " | " in x][:2]
    assert line.endswith('| game x "a\u241b[31mRED\u241b[0m" \u2407 \u2400 zz')
    assert line[carets.index("^")] == "\u2400", (line, carets)
    r = run_cli("play", TRICKS, "--players", "3", stdin="\x1b[31mX\n")
    assert r.code == 2 and "\x1b" not in r.err and "'\u241b[31mx' is not a move" in r.err, r
    assert "   1 | \u241b[31mX" in r.err


def test_output_folders_are_judged_alike_before_the_work(tmp_path):
    # docs found a folder that takes no files (Linux's /proc) only after its simulations; fuzz said
    # "File exists" of a link to nothing; a file name under a file was "a folder that does not exist"
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    for flag in ("--db", "--save-traces"):
        r = run_cli("fuzz", TRICKS, "--examples", "1", flag, str(dangling), *(["--no-db"] if flag != "--db" else []))
        assert r.code == 2 and f"{flag}: '{dangling}' is a link to nothing" in r.err, r
    afile = tmp_path / "afile"
    afile.write_text("x")
    r = run_cli("diff", TRICKS, TRICKS, "--markdown", str(afile / "x.md"))
    assert r.code == 2 and "is a file, not a folder" in r.err, r
    if os.path.isdir("/proc/self"):
        from verifier import docs

        def never(*_args, **_kwargs):
            raise AssertionError("simulated before the folder was judged")
        import unittest.mock
        with unittest.mock.patch.object(docs, "compute", never):
            r = run_cli("docs", TRICKS, "--out", "/proc/rulespec-x", "--games", "2")
        assert r.code == 2 and "error[E008]: --out: cannot write in '/proc/rulespec-x'" in r.err, r


def test_a_spec_named_twice_is_read_once_and_every_broken_spec_is_told(tmp_path):
    # `test` ran (and `docs` documented) a spec given twice twice; `test` stopped at the first broken
    # spec, the others' errors untold
    once = run_cli("test", TRICKS, "--json")
    twice = run_cli("test", TRICKS, TRICKS, os.path.dirname(TRICKS), "--json")
    assert twice.code == once.code and json.loads(twice.out) == json.loads(once.out), twice
    a, b = tmp_path / "a.rules", tmp_path / "b.rules"
    a.write_text("game g\nplayers 2..3 cite \"P\" \"x\"\nvar v: 0..3\ninit cite \"S\" \"s\" { v := hnad }\n")
    b.write_bytes(b"caf\xe9\n")
    r = run_cli("test", str(a), str(b))
    assert r.code == 2 and f"{a}:4:" in r.err and f"{b}:1:4: error[E002]" in r.err, r


def test_verify_tells_every_broken_spec(tmp_path):
    a, b = tmp_path / "a.rules", tmp_path / "b.rules"
    a.write_text("game g\nplayers 2..3 cite \"P\" \"x\"\nvar v: 0..3\ninit cite \"S\" \"s\" { v := hnad }\n")
    b.write_bytes(b"caf\xe9\n")
    r = run_cli("verify", str(a), str(b), "--jobs", "1")
    assert r.code == 2 and f"{a}:4:" in r.err and f"{b}:1:4: error[E002]" in r.err, r
