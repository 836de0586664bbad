"""Shared helpers: compile spec text, run the CLI in-process, find the rulebooks folder."""

from __future__ import annotations

import io
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").rglob("*.rules"))
SHIPPED = EXAMPLES + sorted((ROOT / "spec").rglob("*.rules"))


def pytest_addoption(parser):
    parser.addoption("--rulebooks", default=None,
                     help="folder with the rulebook texts (default: $RULESPEC_RULEBOOKS)")


@pytest.fixture(scope="session")
def rulebooks(request) -> Path:
    """The rulebooks folder, or skip: the project cites the rulebooks and never ships them."""
    folder = request.config.getoption("--rulebooks") or os.environ.get("RULESPEC_RULEBOOKS")
    if not folder or not Path(folder).is_dir():
        pytest.skip("rulebook texts not available: pass --rulebooks DIR or set RULESPEC_RULEBOOKS")
    return Path(folder)


def benchmark(name: str):
    """The module benchmarks/NAME.py, loaded from its file (benchmarks/ is not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def compile_text(text: str, path: str = "<test>.rules"):
    """Parse, check and lower spec text; fail the test on any error."""
    from verifier.check import check
    from verifier.lower import lower
    from verifier.parse import parse_text

    spec_ast = parse_text(text, path)
    diags, model = check(spec_ast)
    errors = [d for d in diags if d.is_error]
    assert not errors, "\n".join(d.render() for d in errors)
    return lower(model)


def diagnostics_of(text: str, path: str = "<test>.rules"):
    """Every diagnostic for spec text (syntax errors included)."""
    from verifier.check import check
    from verifier.diagnostics import UserError
    from verifier.parse import parse_text

    try:
        spec_ast = parse_text(text, path)
    except UserError as exc:
        return exc.diagnostics
    return check(spec_ast)[0]


class Result:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    def __repr__(self):
        return f"Result(code={self.code}, out={self.out[:400]!r}, err={self.err[:400]!r})"


def run_cli(*args: str, stdin: str | None = None) -> Result:
    """Run `rulespec ARGS` in this process; returns exit code, stdout and stderr."""
    from verifier.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(args))
    finally:
        sys.stdin = old_stdin
    return Result(code, out.getvalue(), err.getvalue())


# A constant of every card: with K's field narrowed to 1..1 (replace "v: 0..1"), K(0) is outside
# its range and every game's setup stops at a run-time error (test_cli, test_diff)
FAULTY_CONST = """
game g "G"
players 2..2 cite "P" "p"
card K { v: 0..1 }
const deck: bag of K = { 1 of K(w) for w in 0..1 }
zone s: bag of K
init cite "P" "p" { s := deck }
/// t.
action take() cite "P" "p" when K(1) in s { move K(1) from s to s }
"""

# A small spec used by several tests: two players draw and discard until the deck is empty.
MINI = """
game mini "Mini"
players 2..3 cite "Players" "two or three"
enum Colour { red, blue }
card Chip { colour: Colour, value: 1..3 }
const chips: bag of Chip = { Chip(c, v) for c in Colour for v in 1..3 }
var turn: Player
var done: bool
zone stock: pile of Chip visible hidden
zone hand[Player]: bag of Chip visible owner
zone table: bag of Chip
init cite "Setup" "shuffle" {
  stock := chips
  shuffle stock
}
/// Take the top chip.
action take(p: Player) by p cite "Play" "take a chip"
  when p == turn and size(stock) > 0 and not done
{
  draw 1 from stock to hand[p]
  turn := left(p)
}
/// Lay a chip down.
action lay(p: Player, c: Chip) by p cite "Play" "lay a chip"
  when p == turn and c in hand[p] and not done
{
  move c from hand[p] to table
  turn := left(p)
}
/// Stop when the stock is empty.
action stop() cite "End" "when the stock is empty" when size(stock) == 0 and not done { done := true }
end finished cite "End" "game over": done
/// Chips are conserved.
invariant conserved cite "Chips" "six chips": all(c in Chip: total(c) == 1)
/// The game ends.
terminates ends cite "End" "the game ends": while not done decreases size(stock) * 10 + sum(p in Player: size(hand[p])), 1
"""


def simulated_trace(tmp_path, init: str, action: str, when: str = "true"):
    """A one-variable, two-player spec (x: 0..9, set up by `init`, one action `a(p)` whose guard is
    `when` and body `action`) and the trace of one simulated game of it, saved by simulate:
    (spec path, trace path). Its games end in a run-time error or a deadlock: simulate exits 1."""
    spec = tmp_path / "t.rules"
    spec.write_text('game g\nplayers 2..2 cite "S" "two"\nvar x: 0..9\ninit cite "S" "setup" { ' + init + ' }\n'
                    '/// a.\naction a(p: Player) by p cite "A" "a" when ' + when + ' { ' + action + ' }\n')
    r = run_cli("simulate", str(spec), "--games", "1", "--save-traces", str(tmp_path / "tr"))
    assert r.code == 1, r
    (saved,) = (tmp_path / "tr").iterdir()
    return spec, saved
