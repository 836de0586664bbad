"""The `rulespec` command: parse arguments, call the stages, print, exit.

Exit codes: 0 nothing wrong; 1 a finding: a property violated, a scenario failed, a run-time error
of the spec, a deadlock, a game past --max-steps, or (diff) differences found; 2 invalid input or
usage (with a diagnostic, never a traceback); 3 an internal error; 141 a closed pipe cut the output.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys

from . import __version__
from .diagnostics import Diagnostic, UserError, error

EXIT_OK, EXIT_FOUND, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
# the system's refusals of a user's file or folder (errno), wherever they are met: E008 for an
# output it cannot take (a full disk, a read-only file system), E001 for the others
OUTPUT_REFUSED = {errno.ENOSPC, errno.EROFS, errno.EDQUOT}
USERS_FILES = {errno.EACCES, errno.EPERM, errno.ENAMETOOLONG, errno.ELOOP, errno.ENOTDIR} | OUTPUT_REFUSED
EXIT_PIPE = 141  # the reader of the output went away (a closed pipe): 128 + SIGPIPE, as the shell's tools


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors in the project's diagnostic format."""

    commands: tuple = ()  # (the top parser) its commands, to point at the one given

    def error(self, message):  # noqa: D401 - argparse API
        words = getattr(self, "words", None) or []
        command = next((w for w in words if not w.startswith("-")), None)
        hint = f"see `{self.prog} {command} --help`" if command in self.commands else f"see `{self.prog} --help`"
        raise UserError(error("E006", message, hint=hint))


class _CommandParser(_Parser):
    """A command's parser: options and files in any order (`check a.rules --json b.rules`).
    Plain argparse gives a list of files the words up to the first option and refuses the rest."""

    _inside = False

    def parse_known_args(self, args=None, namespace=None):
        if self._inside:  # parse_known_intermixed_args calls this twice
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inside = False


def _whole(text: str, lo: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < lo:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number" if lo else f"{value} is negative (0: none)")
    return value


def _positive(text: str) -> int:
    return _whole(text, 1)


def _count(text: str) -> int:
    """A number of games or moves: 0 (none) or more."""
    return _whole(text, 0)


def _seed(text: str) -> str:
    """Any text that is text: a seed is hashed as UTF-8 (a command line's undecodable bytes are not)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError("the seed is not UTF-8 text") from None
    return text


def _path(text: str) -> str:
    """A file or folder to write or read: not empty (an empty name was taken as the option not
    given, and its output silently not written)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty name: give a file or folder")
    return text


def _seconds(text: str) -> float:
    """A time limit in seconds: a positive number, decimals allowed (0.5)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    if not 0.001 <= value <= 4_294_967:  # the solver counts its limit in whole milliseconds, in 32 bits
        raise argparse.ArgumentTypeError(f"{text} s is outside the time limits the solver takes, 0.001 to 4294967 s")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="rulespec", description="Formal rules specifications for board and card games: "
                "check a .rules file, run its rulings, simulate, replay and play games, prove its properties, "
                "compare editions, and write the rules reference.",
                epilog="Exit codes: 0 nothing wrong, 1 a finding (a violation, a failed scenario, a run-time "
                       "error, a deadlock, a game past --max-steps, differences between editions), 2 invalid input, "
                       "3 internal error.")
    p.add_argument("--version", action="version", version=f"rulespec {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)

    c = sub.add_parser("check", help="parse and check specs, and run their scenarios",
                       description="Parse and statically check .rules files (names, types, ranges, arity, "
                                   "duplicates, citations), then run every scenario. Folders are searched "
                                   "for .rules files.")
    c.add_argument("specs", nargs="+", metavar="SPEC", help=".rules files or folders")
    c.add_argument("--rulebooks", metavar="DIR",
                   help="folder of rulebook texts: check that every citation occurs in its rulebook, "
                        "looked for in DIR first, then next to the spec (default: $RULESPEC_RULEBOOKS)")
    c.add_argument("--no-scenarios", action="store_true", help="only check, do not run scenarios")
    c.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    t = sub.add_parser("test", help="run the scenarios (rulings) of specs and show each one",
                       description="Run every scenario of the given specs through the interpreter and "
                                   "report each with its moves.")
    t.add_argument("specs", nargs="+", metavar="SPEC", help=".rules files or folders")
    t.add_argument("-k", metavar="TEXT", help="only scenarios whose name contains TEXT (none: exit 2)")
    t.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    s = sub.add_parser("simulate", help="play random complete games and report what happened",
                       description="Play K random games (uniform among legal moves) for each player count, "
                                   "checking every invariant after every step. Reports moves per game, how "
                                   "games ended, and every gap, deadlock, fault or violation with the "
                                   "shortest trace that reaches it. Game g uses the seed \"S/g\".")
    s.add_argument("spec", metavar="SPEC", help="a .rules file")
    s.add_argument("--players", type=_positive, metavar="N", help="player count (default: every count)")
    s.add_argument("--games", type=_positive, default=100, metavar="K", help="games per player count (default 100)")
    s.add_argument("--seed", type=_seed, default="0", metavar="S", help="seed (any text; default 0)")
    s.add_argument("--max-steps", type=_positive, default=100_000, metavar="M",
                   help="stop a game that has not ended after M moves (default 100000)")
    s.add_argument("--save-traces", type=_path, metavar="DIR", help="write each finding's shortest trace there as ITF JSON")
    s.add_argument("--avoid-gaps", action="store_true",
                   help="when a move reaches an undecided point, record the gap, take the move back and play "
                        "another (a game stops at a gap only when every legal move reaches one)")
    s.add_argument("--no-check", action="store_true", help="do not check properties (for speed measurements)")
    s.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    v = sub.add_parser("verify", help="prove the properties with Z3, for every player count",
                       description="Prove every property of the specs with Z3, for every player count: invariants "
                                   "by induction (one that is not inductive alone: by k-induction, k = 2 to 4, where "
                                   "the bounded search found no violation within k - 1 moves), rankings and bounds "
                                   "by induction, undecided points proved "
                                   "unreachable or reached, deadlocks and run-time errors ruled out. What is not "
                                   "proved is searched for in random games, by a directed search of the interpreter "
                                   "(from the states nearest each goal) and by bounded model checking; every "
                                   "counterexample and witness is replayed in the interpreter before it is reported. "
                                   "What Z3 proves (and what it proves unreachable) is checked against the random "
                                   "games the run plays (every invariant, ranking and bound after every move, "
                                   "run-time errors and deadlocks where they happen), and what it proves unreachable "
                                   "against the directed search too: a game that breaks a proved result or reaches "
                                   "what Z3 ruled out, replayed, turns it into unknown, naming the defect, with the "
                                   "game's trace; where it breaks a proved invariant, every other proof of that "
                                   "player count (each assumed the proved invariants) turns into unknown too. "
                                   "Statuses: proved, bounded (k = depth), violated (with a trace), unknown "
                                   "(time-out, unsupported, Z3 and a replayed game "
                                   "disagree, or an invariant a game cannot evaluate), and for reachability reachable / unreachable. With no SPEC: every "
                                   "spec under spec/.")
    v.add_argument("specs", nargs="*", metavar="SPEC", help=".rules files or folders (default: spec/)")
    v.add_argument("--players", type=_positive, metavar="N", help="player count (default: every count)")
    v.add_argument("--depth", type=_positive, default=8, metavar="K",
                   help="bounded search depth in moves for what induction does not prove; k-induction tries k up to K + 1 "
                        "(default 8)")
    v.add_argument("--timeout", type=_seconds, default=30, metavar="SECONDS",
                   help="time limit of each solver query; past it the answer is unknown (default 30)")
    v.add_argument("--property-timeout", type=_seconds, metavar="SECONDS",
                   help="time limit of each property's solver queries in all (the induction, which proves the "
                        "invariants together, has one): once they have taken it, a query still running gets "
                        "only what is left, no more are asked, and the property is unknown (or bounded, to "
                        "the depth its search finished), with the time spent (default: none)")
    v.add_argument("--games", type=_count, default=100, metavar="G",
                   help="random games played for witnesses deeper than the bounded search: a gap reached, a "
                        "sanity goal reached, or a violation found there is a real trace; what Z3 proves is checked against "
                        "them (default 100; 0: none)")
    v.add_argument("--explore", type=_count, default=400_000, metavar="MOVES",
                   help="moves of a directed search for the goals, undecided points and violations the random "
                        "games missed: play goes on from the states nearest each goal. A goal it has not reached "
                        "after 3/4 of MOVES (sooner once only costly goals and undecided points are left; not an "
                        "undecided point) gets a search of its own of MOVES/4 more (4 runs "
                        "from start games of their own, or one run where Z3 sorts the start games; for a costly "
                        "goal one run, a quarter of its rollouts choosing each move one step ahead); then the "
                        "search goes on for what is left, where an undecided point Z3 proves out of reach no "
                        "longer keeps it going; what is still open and not ruled out by Z3 gets one more "
                        "search of MOVES/4 from a seed of its own. Start games Z3 proves out of a goal's reach are left; what it "
                        "finds is replayed and real, finding nothing proves nothing (default 400,000; 0: none)")
    v.add_argument("--seed", type=_seed, default="verify", metavar="S",
                   help="seed of the random games (S/0, S/1, ...) and of the directed search: what they reach "
                        "rests on it, so a goal or undecided point left bounded may be reached with another "
                        "(default verify)")
    v.add_argument("--jobs", type=_positive, metavar="J",
                   help="player counts (and specs) verified at once, each in its own process (default: the "
                        "number of processors); a count started after others splits at once the questions they "
                        "found hard")
    v.add_argument("--answers", type=_path, metavar="FILE",
                   help="keep the solver's unsat answers in FILE (SQLite, created when missing) and take them "
                        "from there: a run that was stopped, or one after a change that leaves most questions "
                        "as they were, does not ask again the questions of the induction, the run-time error "
                        "check and the split questions that FILE settles. Keyed by each question's exact terms "
                        "and the Z3 version; sat and unknown answers are asked again. FILE also keeps the plays "
                        "the directed search found: a later run replays them, and searches only for the goals "
                        "whose kept play no longer replays and reaches them")
    v.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    df = sub.add_parser("diff", help="compare two editions of a game: every difference with a witness",
                        description="Compare two editions of a game (two specs of the same game). Rules align by "
                                    "identifier: the rules added, removed and changed are listed. For every "
                                    "changed action Z3 looks for a state and move that one edition allows and the "
                                    "other forbids, whose outcome differs, or that one edition leaves undecided; "
                                    "each witness is played in both editions' interpreters and reported only if "
                                    "they bear it out, as a short scenario with both citations. A change Z3 finds "
                                    "no witness for (the same behaviour, or not decided) is played in both "
                                    "interpreters from states of the first "
                                    "edition's simulated games, then of the second's (--games of each), where a "
                                    "pile's order, which Z3 "
                                    "leaves free, shows in a later play; with no witness from either it "
                                    "formalises the same behaviour. The properties are compared on "
                                    "simulated games. Differences are ranked: changes scoring, changes play, "
                                    "leaves a situation undecided, no effect on play. Exit code 1 when "
                                    "differences are found.")
    df.add_argument("spec_a", metavar="SPEC_A", help="the reference edition, a .rules file")
    df.add_argument("spec_b", metavar="SPEC_B", help="the edition compared with it, a .rules file")
    df.add_argument("--players", type=_positive, metavar="N",
                    help="player count (default: every count both editions allow)")
    df.add_argument("--timeout", type=_seconds, default=30, metavar="SECONDS",
                    help="time limit of each solver query; past it the rule is listed as not decided (default 30)")
    df.add_argument("--games", type=_count, default=100, metavar="G",
                    help="simulated games per edition and player count for comparing the properties, "
                         "and games of each edition from whose states the rules Z3 finds no witness "
                         "for are played (default 100; 0: neither)")
    df.add_argument("--markdown", type=_path, metavar="FILE",
                    help="also write the report as a Markdown page (for `rulespec docs --diff`); never "
                         "replaces a file that rulespec diff did not write")
    df.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    f = sub.add_parser("fuzz", help="property-based testing with Hypothesis: generated games, failures shrunk",
                       description="Run the spec as a Hypothesis test. Each example is one game: the seed for "
                                   "shuffles and the parameters are drawn by Hypothesis, then each step is a legal "
                                   "move Hypothesis chooses (an action, then its arguments), and every invariant, "
                                   "ranking and bound is checked after every step. A failure (a violated property, a "
                                   "run-time error, a deadlock, no end within the step limit) is shrunk to a short "
                                   "game and printed as a trace with citations, with its length before and after "
                                   "shrinking. Rulebook gaps and violations the spec expects are counted, not "
                                   "failures. The same seed gives the same run; failing examples are kept in "
                                   "Hypothesis's example database and tried first the next time.")
    f.add_argument("spec", metavar="SPEC", help="a .rules file")
    f.add_argument("--players", type=_positive, metavar="N", help="player count (default: every count)")
    f.add_argument("--examples", type=_positive, default=100, metavar="K",
                   help="examples (games) per player count (default 100)")
    f.add_argument("--seed", type=_seed, default="0", metavar="S", help="seed (any text; default 0)")
    f.add_argument("--max-steps", type=_positive, default=2000, metavar="M",
                   help="a game with no end after M moves is a failure (default 2000, at most 3000: Hypothesis "
                        "keeps 8 KB of choices per example)")
    db = f.add_mutually_exclusive_group()
    db.add_argument("--db", type=_path, metavar="DIR",
                    help="the folder of Hypothesis's example database (default: rulespec/hypothesis in the user's "
                         "cache folder, $XDG_CACHE_HOME or ~/.cache)")
    db.add_argument("--no-db", action="store_true", help="use no example database: nothing is read or written")
    f.add_argument("--save-traces", type=_path, metavar="DIR",
                   help="write each failure's shrunk trace there as ITF JSON (replay it with rulespec replay)")
    f.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    r = sub.add_parser("replay", help="replay a saved trace and say where it stops being legal",
                       description="Replay an ITF trace (as written by simulate --save-traces or play "
                                   "--save-trace) move by move, checking that each move is legal and each "
                                   "recorded state matches the rules.")
    r.add_argument("spec", metavar="SPEC", help="a .rules file")
    r.add_argument("trace", metavar="TRACE", help="an ITF JSON trace")
    r.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    d = sub.add_parser("docs", help="write the rules reference: Markdown pages for mkdocs",
                       description="Write the rules reference as Markdown pages for mkdocs: for each spec its "
                                   "components, setup, round structure (a diagram), every rule in plain English "
                                   "next to its formal text and citation, every property with its status per "
                                   "player count, the rulebook gaps, and statistics of simulated games with plots. "
                                   "Property statuses come from --results files; without one they come from the "
                                   "simulations (tested or violated, never proved). Refuses to write into a "
                                   "folder that holds files it did not write (a folder of the user's, an empty "
                                   "one or a link too).")
    d.add_argument("specs", nargs="*", metavar="SPEC",
                   help=".rules files or folders (default: every .rules file under examples/ and spec/)")
    d.add_argument("--out", required=True, type=_path, metavar="DIR",
                   help="the folder for the pages (created if missing; its earlier pages are replaced)")
    d.add_argument("--results", action="append", default=[], metavar="FILE",
                   help="verify results in the JSON format of `rulespec verify --json`, for the property statuses (repeatable)")
    d.add_argument("--diff", action="append", default=[], metavar="FILE",
                   help="a difference report, the page `rulespec diff --markdown` writes, included in the edition differences page (repeatable)")
    d.add_argument("--games", type=_positive, default=100, metavar="K",
                   help="simulated games per player count, for the statistics and statuses (default 100)")
    d.add_argument("--seed", type=_seed, default="0", metavar="S", help="seed for the simulations (any text; default 0)")
    d.add_argument("--max-steps", type=_positive, default=100_000, metavar="M",
                   help="stop a simulated game that has not ended after M moves (default 100000)")
    d.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    pl = sub.add_parser("play", help="step through a game choosing among numbered legal moves",
                        description="Play a game at a prompt: the state as the player to move sees it, then "
                                    "the numbered legal moves. Type a number, 'r' for a random move, 's' for "
                                    "the whole state, 'q' to quit. Reads moves from a pipe too, one per line.")
    pl.add_argument("spec", metavar="SPEC", help="a .rules file")
    pl.add_argument("--players", type=_positive, metavar="N", help="player count (default: the smallest)")
    pl.add_argument("--seed", type=_seed, default="0", metavar="S", help="seed (default 0)")
    pl.add_argument("--save-trace", type=_path, metavar="FILE", help="write the game as an ITF JSON trace (a new file), also "
                    "when it is left with q, the end of input or Ctrl-C")
    p.commands = tuple(sub.choices)
    return p


def main(argv: list[str] | None = None) -> int:
    global _emitted
    _emitted = False
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for stream in (sys.stdout, sys.stderr):  # a file name that is not text in the locale (an old
        try:                                  # Latin-1 archive's) is shown escaped, not an error
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):  # (a stream that is not a text file: a test's StringIO)
            pass
    parser = build_parser()
    parser.words = sys.argv[1:] if argv is None else list(argv)  # (for a usage error's hint)
    try:
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help()
            return EXIT_INPUT
        from . import commands
        return getattr(commands, "cmd_" + args.command)(args)
    except UserError as exc:
        return main_error(exc, argv)
    except KeyboardInterrupt:
        print("rulespec: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the output was cut short, so the outcome was not told: not success
        _silence()
        return EXIT_PIPE
    except OSError as exc:
        if exc.errno not in USERS_FILES:
            return internal_error(exc)
        # a file or folder of the user's that the system refuses (permissions, a name too long, a
        # loop of links), wherever rulespec meets it: the user's input, not a bug; a full disk or
        # a read-only file system refuses an output (E008)
        if exc.errno in OUTPUT_REFUSED:
            where = f" '{exc.filename}'" if exc.filename is not None else ""
            return main_error(UserError(error("E008", f"cannot write the output{where}: {exc.strerror or exc}",
                                              hint="free some space, or write elsewhere")), argv)
        name = f"'{exc.filename}'" if exc.filename is not None else "a file"
        refused = UserError(error("E001", f"cannot use {name}: {exc.strerror or exc}",
                                  hint="check the path and its permissions"))
        if exc.filename is not None and exc.filename in parser.words:  # (a SPEC given: a folder that cannot be read)
            refused.path = exc.filename
        return main_error(refused, argv)
    except Exception as exc:  # our bug, not the user's: say so plainly
        from .backends.interpreter import ParamError
        if isinstance(exc, ParamError):  # the spec's parameters, wherever a command draws them: the user's input
            return main_error(UserError(error("E305", str(exc), exc.span)), argv)
        return internal_error(exc)


def internal_error(exc: Exception) -> int:
    if os.environ.get("RULESPEC_DEBUG"):
        raise exc
    print(f"rulespec: internal error (a bug in rulespec, not in your input): {type(exc).__name__}: {exc}\n"
          "  set RULESPEC_DEBUG=1 to see the traceback, and please report it", file=sys.stderr)
    return EXIT_INTERNAL


def main_error(exc: UserError, argv) -> int:
    """Bad input: its diagnostics on stderr, and with --json as the one document on stdout. Exit 2
    even where a reader of either went away (a closed pipe). `check --json` keeps its own document
    (docs/cli.md), with nothing on stderr: the error is one entry of its files, under the SPEC it
    is about (`exc.path`, set where a SPEC given is refused) or null (the command line, the
    --rulebooks folder)."""
    words = sys.argv[1:] if argv is None else list(argv)
    asked = any(len(w) > 2 and "--json".startswith(w) for w in words)  # (argparse takes --j too)
    if asked and not _emitted and words and words[0] == "check":
        try:
            emit_json({"ok": False, "files": [{"path": getattr(exc, "path", None), "ok": False, "rulebook": None,
                                               "diagnostics": [d.to_json() for d in exc.diagnostics],
                                               "scenarios": []}]})
        except BrokenPipeError:
            _silence()
        return EXIT_INPUT
    try:
        print_diagnostics(exc.diagnostics)
    except BrokenPipeError:
        _silence("stderr")
    if asked and not _emitted and not (words and words[0] == "play"):
        # --json gives one document on stdout, for bad input too (its diagnostics)
        try:
            emit_json({"ok": False, "diagnostics": [d.to_json() for d in exc.diagnostics]})
        except BrokenPipeError:
            _silence()
    return EXIT_INPUT


def _silence(stream: str = "stdout") -> None:
    """After a closed pipe: what is still written there goes nowhere (and Python's flush at exit
    does not complain)."""
    try:
        setattr(sys, stream, open(os.devnull, "w"))
    except OSError:
        pass


def print_diagnostics(diags: list[Diagnostic], stream=None) -> None:
    stream = stream or sys.stderr
    sys.stdout.flush()
    for d in diags:
        print(d.render(), file=stream)
    stream.flush()


_emitted = False  # whether a command has printed its JSON document


def emit_json(doc) -> None:
    global _emitted
    _emitted = True
    json.dump(doc, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
