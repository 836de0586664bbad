"""Play a game at a prompt: the state as the player to move sees it, then numbered legal moves.

Reads one answer per line, so a pipe can drive it (tests do). On a terminal a wrong answer is
asked again; from a pipe it is an input error (exit 2) naming the line.
"""

from __future__ import annotations

import random

from . import ir
from .backends.interpreter import Program
from .backends.runtime import Fault, Gap
from .cli import EXIT_FOUND, EXIT_INPUT, EXIT_OK
from .diagnostics import error
from .source import SourceFile, Span, register
from .types import BagT, MapT, PileT, PlayerT, format_value

HELP = "a number picks that move; r = a random move, s = the whole state, q = quit, ? = this help"


def view(program: Program, S: list, viewer: int | None, everything: bool = False) -> list[str]:
    """The state as `viewer` sees it (zones' visibility respected), one line per variable."""
    dom = program.domains
    lines = []
    for var, value in zip(program.spec.state, S):
        t = var.type
        vis = "public" if everything else var.visibility
        if vis == "public":
            lines.append(f"{var.name}: {format_value(t, value, dom)}")
            continue
        if isinstance(t, MapT):
            parts = []
            for k, v in zip(dom.values(t.key), value):
                key = format_value(t.key, k, dom)
                mine = vis == "owner" and isinstance(t.key, PlayerT) and k == viewer
                parts.append(f"{key}: {format_value(t.value, v, dom) if mine else _count(t.value, v, vis)}")
            lines.append(f"{var.name}: {{{', '.join(parts)}}}")
        else:
            lines.append(f"{var.name}: {_count(t, value, vis)}")
    return lines


def _count(t, v, vis: str = "count") -> str:
    if vis == "hidden":
        return "(hidden)"
    if isinstance(t, BagT):
        return f"{sum(v)} cards"
    if isinstance(t, PileT):
        return f"{len(v)} cards"
    return "(hidden)"


def play(spec: ir.Spec, players: int, seed: str, inp, out, save_path: str | None) -> int:
    from .simulate import record_trace
    from .trace import dump_itf

    program = Program(spec, players)
    try:
        game = program.start(seed)
    except Gap as exc:
        u = spec.undecided[exc.id]
        print(f"The setup reaches an undecided point: {u.reason}" + (f"  {u.cite.label()}" if u.cite else ""), file=out)
        return EXIT_OK
    except Fault as exc:
        print(f"Run-time error in the spec's setup: {exc.message} (at {program.span(exc.span_id)})", file=out)
        return EXIT_FOUND
    policy = random.Random(f"{seed}/policy")
    interactive = hasattr(inp, "isatty") and inp.isatty()
    say = lambda text="": print(text, file=out, flush=True)  # noqa: E731
    title = spec.title or spec.game
    say(f"{title}" + (f" ({spec.edition})" if spec.edition else "") + f", {players} players, seed \"{seed}\"")
    say(HELP)
    read: list[str] = []  # the lines read so far, quoted when one is not an answer
    code = EXIT_OK
    while True:
        try:  # (the end conditions, the guards and who chooses each move, evaluated: they may fault)
            end = game.ended()
            moves = game.legal_moves() if end is None else []
            choosers = {game.chooser(m) for m in moves}
        except Fault as exc:
            say(f"\nRun-time error in the spec after move {len(game.moves)}: {exc.message} "
                f"(at {program.span(exc.span_id)})")
            code = EXIT_FOUND
            break
        if end is not None:
            say(f"\nThe game is over: {end.name}" + (f"  {end.cite.label()}" if end.cite else ""))
            for name, value in game.stats().items():
                say(f"  {name}: {value}")
            break
        if not moves:
            say("\nNo legal move is left and the game has not ended: a deadlock.")
            code = EXIT_FOUND
            break
        viewer = next(iter(choosers)) if len(choosers) == 1 else None
        who = f"P{viewer}" if viewer is not None else "the rules (or several players)"
        say(f"\n--- move {len(game.moves) + 1}: {who} to choose ---")
        for line in view(program, game.S, viewer):
            say("  " + line)
        for k, m in enumerate(moves, 1):
            cite = spec.actions[m[0]].cite
            say(f"  {k:3d}. {program.move_label(m)}" + (f"   {cite.label()}" if cite else ""))
        move = None
        while move is None:
            if interactive:
                out.write("move? ")
                out.flush()
            try:
                answer = inp.readline()
            except KeyboardInterrupt:  # Ctrl-C at the prompt: leave as q does, keeping the game played
                say("\n(interrupted)")
                _finish(program, game, save_path, say, code)
                raise
            except UnicodeDecodeError:  # bytes that are not text in the locale's encoding
                answer = "\ufffd\n"
            if not answer:
                say("(end of input)")
                return _finish(program, game, save_path, say, code)
            read.append(answer.rstrip("\r\n"))
            answer = answer.strip().lower()
            if answer in ("q", "quit", "exit"):
                return _finish(program, game, save_path, say, code)
            if answer in ("?", "h", "help", ""):
                say(HELP)
                continue
            if answer == "s":
                for line in view(program, game.S, viewer, everything=True):
                    say("  " + line)
                continue
            if answer == "r":
                move = moves[policy.randrange(len(moves))]
            elif answer.isdecimal() and 1 <= int(answer) <= len(moves):  # (not isdigit: '²' is a digit int() refuses)
                move = moves[int(answer) - 1]
            else:
                message = f"'{answer}' is not a move: answer 1 to {len(moves)}, or r, s, q"
                if interactive:
                    say(message)
                    continue
                from .cli import print_diagnostics
                print_diagnostics([error("E006", message, _answer_span(inp, read), hint=HELP)])
                _finish(program, game, save_path, say, code)
                return EXIT_INPUT
        say(f"> {program.move_label(move)}")
        try:
            violations = game.step(move)
        except Gap as exc:
            u = spec.undecided[exc.id]
            say(f"\nThe rules do not say what happens now: {u.reason}" + (f"  {u.cite.label()}" if u.cite else ""))
            game.moves.append(move)
            break
        except Fault as exc:
            say(f"\nRun-time error in the spec: {exc.message} (at {program.span(exc.span_id)})")
            game.moves.append(move)  # (the saved trace keeps it: its replay meets the error too)
            code = EXIT_FOUND
            break
        for v in violations:
            tag = "expected: " if v.prop.expect_violated else ""
            say(f"  ! {tag}{v.prop.kind} {v.prop.name} violated: {v.message}")
            if not v.prop.expect_violated:
                code = EXIT_FOUND
    return _finish(program, game, save_path, say, code)


def _answer_span(inp, read: list[str]) -> Span:
    """Where the last line read lies in the input (named `<stdin>` for a pipe, else the file's
    name), its answer marked; the lines read are registered as the input's text to be quoted."""
    name = getattr(inp, "name", None)
    source = SourceFile(name if isinstance(name, str) else "<stdin>", "\n".join(read))
    register(source)
    line = read[-1]
    col = len(line) - len(line.lstrip()) + 1
    return Span(source.path, len(read), col, len(read), col + max(1, len(line.strip())))


def _finish(program, game, save_path, say, code):
    if save_path:
        from .simulate import record_trace
        from .diagnostics import UserError
        from .trace import dump_itf, write_new

        moves = list(game.moves)
        trace = record_trace(program, game.seed, game.params, moves)
        path, problem = write_new([save_path], dump_itf(trace.to_itf("played with rulespec play")), "--save-trace")
        if problem:  # (the folder was checked before the game; the game is kept all the same)
            raise UserError(problem)
        say(f"trace saved to {path}")
    return code
