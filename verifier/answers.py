"""A store of the solver's unsat answers, so that a long verification can be resumed.

A question is a list of Z3 facts; its key is a digest of their exact terms: every node of the
term graph is digested (BLAKE2b) from its operator's full declaration (name as printed and as it
is, parameters and signature), a numeral's sort and exact value, or the printed form of anything
else (a quantifier, with its free constants' declarations; a bound variable), with its arguments'
digests in order; the key digests the facts' digests in
order, the Z3 version and the scheme's version. So the same question built again, in another
process or another run, has the same key, and a question that differs in any term (a sign, a
constant, an argument's order) has another. Only unsat answers are kept: they do not depend on the
time limit or the machine, and they carry no model. A sat question is asked again (its model is
wanted), an unknown one too (it may settle on a quieter machine). Except a brief try: the prover
asks a question that it can split first briefly, and only splits it when the try does not settle
(the answer is the same either way); a brief try that timed out is kept with its time limit, so
that a resumed run splits at once instead of waiting for the same time-out again.

The store is one SQLite file, stamped as rulespec's: several processes may read and add at
once, and an answer is written as soon as it is found, so a run that is stopped keeps what it
settled. A file that is not such a store is refused and left as it was.

It also keeps the plays the directed search found (per game, player count and goal: a
reachability goal, an invariant's violation, an undecided point), so that a later run replays a
kept play instead of searching again. A play is kept as its seed, parameters and moves, and is
trusted only after it replays in the run's own spec and does there what it claims; one that no
longer does (the spec changed) is passed over and searched for anew. Its values are written as
tagged JSON (tuples, lists, sets and frozensets of numbers, strings and booleans), never pickled:
a store from elsewhere cannot run code.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

import z3

SCHEME = b"rulespec-answers-3"
APPLICATION_ID = 0x72756C65  # "rule": marks a store of answers (PRAGMA application_id)


class NotAStore(Exception):
    """The file exists and is not a store of answers (or cannot be written)."""


class Digests:
    """Exact digests of Z3 terms, remembered by node while the terms stay alive: every fact
    digested is kept (so its nodes' ids are not reused for other terms)."""

    def __init__(self):
        self._memo: dict[int, bytes] = {}
        self._decls: dict[int, bytes] = {}
        self._alive: list = []
        self._ctx = z3.main_ctx()

    def key(self, facts) -> str | None:
        """The key of a question; None when a fact is of another context (not kept)."""
        out = hashlib.blake2b(SCHEME + z3.get_full_version().encode(), digest_size=32)
        for f in facts:
            if f is True:
                continue
            if isinstance(f, bool):
                out.update(b"|false")
                continue
            if not isinstance(f, z3.ExprRef) or f.ctx is not self._ctx:
                return None
            out.update(b"|" + self._digest(f))
        return out.hexdigest()

    def _digest(self, f: z3.ExprRef) -> bytes:
        ctx, memo = self._ctx.ref(), self._memo
        get_id, kind_of = z3.Z3_get_ast_id, z3.Z3_get_ast_kind
        num_args, get_arg = z3.Z3_get_app_num_args, z3.Z3_get_app_arg
        root = f.as_ast()
        rid = get_id(ctx, root)
        if rid in memo:
            return memo[rid]
        self._alive.append(f)
        stack = [(root, False)]
        while stack:
            a, ready = stack.pop()
            i = get_id(ctx, a)
            if i in memo:
                continue
            kind = kind_of(ctx, a)
            if kind == z3.Z3_APP_AST:
                args = [get_arg(ctx, a, j) for j in range(num_args(ctx, a))]
                if not ready:
                    stack.append((a, True))
                    stack.extend((x, False) for x in args if get_id(ctx, x) not in memo)
                    continue
                d = z3.Z3_get_app_decl(ctx, a)
                di = get_id(ctx, z3.Z3_func_decl_to_ast(ctx, d))
                if di not in self._decls:
                    self._decls[di] = b"a" + z3.Z3_func_decl_to_string(ctx, d).encode() + _raw_name(ctx, d)
                h = hashlib.blake2b(self._decls[di], digest_size=20)
                for x in args:
                    h.update(memo[get_id(ctx, x)])
                memo[i] = h.digest()
            elif kind == z3.Z3_NUMERAL_AST:
                text = (b"n" + z3.Z3_sort_to_string(ctx, z3.Z3_get_sort(ctx, a)).encode() + b" "
                        + z3.Z3_get_numeral_string(ctx, a).encode())
                memo[i] = hashlib.blake2b(text, digest_size=20).digest()
            else:
                # a quantifier's printed form names its free constants without their sorts (a
                # Bool a and an Int a print alike): their declarations are digested too
                h = hashlib.blake2b(b"o" + z3.Z3_ast_to_string(ctx, a).encode(), digest_size=20)
                if kind == z3.Z3_QUANTIFIER_AST:
                    for d in _free_decls(z3.QuantifierRef(a, self._ctx)):
                        h.update(b"|" + d.sexpr().encode() + _raw_name(ctx, d.ast))
                memo[i] = h.digest()
        return memo[rid]


def _raw_name(ctx, d) -> bytes:
    """A declaration's name as it is (a name that needs quoting prints like one that is quoted)."""
    sym = z3.Z3_get_decl_name(ctx, d)
    if z3.Z3_get_symbol_kind(ctx, sym) == z3.Z3_INT_SYMBOL:
        return b"#" + str(z3.Z3_get_symbol_int(ctx, sym)).encode()
    return b"'" + z3.Z3_get_symbol_string(ctx, sym).encode()


def _free_decls(q) -> list:
    """The uninterpreted declarations a quantifier's body applies, in order of first appearance."""
    out, seen, stack = [], set(), [q.body()]
    while stack:
        x = stack.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_quantifier(x):
            stack.append(x.body())
        elif z3.is_app(x):
            if x.decl().kind() == z3.Z3_OP_UNINTERPRETED and x.decl().get_id() not in seen:
                seen.add(x.decl().get_id())
                out.append(x.decl())
            stack.extend(reversed(x.children()))
    return out


def fingerprint(facts) -> str | None:
    """The key of a question (see the module docstring), computed afresh."""
    return Digests().key(facts)


class Answers:
    """The unsat answers kept in a file (created when missing; its folder must exist). Raises
    NotAStore for a file that is not one (it is then left as it was) or that cannot be written."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        new = not self.path.exists()
        if not new and self.path.stat().st_size == 0:
            raise NotAStore("an empty file")
        try:
            self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            if new:
                self._db.execute(f"pragma application_id = {APPLICATION_ID}")
                self._db.execute("create table if not exists unsat (key text primary key, seconds real)")
                self._db.execute("create table if not exists brief (key text primary key, ms integer)")
            elif self._db.execute("pragma application_id").fetchone()[0] != APPLICATION_ID:
                raise NotAStore("not written by rulespec verify --answers")
            else:  # a store written before brief tries were kept
                self._db.execute("create table if not exists brief (key text primary key, ms integer)")
            self._db.execute("create table if not exists plays (scope text, goal text, seed text, params text, "
                             "moves text, primary key (scope, goal))")
            self._db.execute("select scope, goal, seed, params, moves from plays limit 0")  # (a changed table: refused)
            damage = self._db.execute("pragma quick_check").fetchone()[0]
            if damage != "ok":  # (a damaged page: the store's count or a lookup failed later, exit 3)
                raise NotAStore(f"damaged: {damage}")
            self._db.execute("begin immediate")  # can it be written? (a read-only file passes this,
            self._db.execute("insert or ignore into brief values ('', 0)")  # not a write)
            self._db.execute("rollback")
        except sqlite3.DatabaseError as exc:
            raise NotAStore(str(exc)) from None
        self.digests = Digests()
        self.hits = 0      # questions answered from the store in this run
        self.misses = 0    # questions asked of the solver
        self.added = 0     # unsat answers written
        self.plays_reused = 0  # kept plays of the directed search that replayed in this run (Verifier.kept_plays)
        self.plays_added = 0   # plays written

    def key(self, facts) -> str | None:
        return self.digests.key(facts)

    def counts(self) -> tuple[int, int, int, int, int]:
        """(questions answered from the store, questions asked of the solver, unsat answers added,
        kept plays replayed instead of searched for, plays added)."""
        return self.hits, self.misses, self.added, self.plays_reused, self.plays_added

    def known(self, key: str, brief_ms: int | None = None) -> str | None:
        """"unsat" when the question was found unsat; "unknown" when it is asked as a brief try
        of brief_ms and a try at least as long timed out before; else None (ask the solver)."""
        found = None
        if self._db.execute("select 1 from unsat where key = ?", (key,)).fetchone() is not None:
            found = "unsat"
        elif brief_ms is not None:
            row = self._db.execute("select ms from brief where key = ?", (key,)).fetchone()
            if row is not None and row[0] >= brief_ms:
                found = "unknown"
        if found:
            self.hits += 1
        else:
            self.misses += 1
        return found

    def add(self, key: str, seconds: float) -> None:
        cur = self._db.execute("insert or ignore into unsat values (?, ?)", (key, round(seconds, 3)))
        self.added += max(cur.rowcount, 0)

    def add_brief(self, key: str, ms: int) -> None:
        """A brief try of ms that timed out."""
        self._db.execute("insert into brief values (?, ?) on conflict(key) do update set ms = max(ms, excluded.ms)",
                         (key, ms))

    def __len__(self) -> int:
        return self._db.execute("select count(*) from unsat").fetchone()[0]

    def plays(self, scope: str) -> dict[str, tuple]:
        """The plays kept for scope (a game and a player count): goal key -> (seed, params, moves).
        A row that does not decode (written by another version) is left out."""
        found = {}
        for row in self._db.execute("select cast(goal as blob), cast(seed as blob), cast(params as blob), "
                                    "cast(moves as blob) from plays where scope = ?", (scope,)):
            try:  # (read as bytes: text that is not UTF-8 stopped the whole query)
                goal, seed, params, moves = (bytes(x).decode("utf-8") for x in row)
                found[goal] = (seed, _decode(json.loads(params)), _decode(json.loads(moves)))
            except (ValueError, TypeError, KeyError, RecursionError):
                continue
        return found

    def add_play(self, scope: str, goal: str, seed: str, params: list, moves: list) -> None:
        """Keep a play that reached goal (replacing the one kept before); a value that tagged JSON
        cannot hold is not kept."""
        try:
            row = (scope, goal, seed, json.dumps(_encode(params)), json.dumps(_encode(moves)))
        except TypeError:
            return
        self._db.execute("insert or replace into plays values (?, ?, ?, ?, ?)", row)
        self.plays_added += 1


_TAGS = {tuple: "t", list: "l", frozenset: "f", set: "s"}


def _encode(x):
    """x as JSON: a container as {tag: [items]} (sets sorted by their JSON text), a number, string,
    boolean or None as itself. TypeError for anything else."""
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    tag = _TAGS.get(type(x))
    if tag is None:
        raise TypeError(f"cannot keep a {type(x).__name__}")
    items = [_encode(y) for y in x]
    if tag in "fs":
        items.sort(key=json.dumps)
    return {tag: items}


def _decode(x):
    if isinstance(x, dict):
        (tag, items), = x.items()
        kind = {v: k for k, v in _TAGS.items()}[tag]
        return kind(_decode(y) for y in items)
    if isinstance(x, list):
        raise ValueError("a bare list")
    return x


def open_answers(path: str, flag: str = "--answers") -> Answers:
    """The store at path for a command-line option, or a diagnostic (exit 2): the path is a
    folder, its folder is missing or not writable, or the file is not a store of answers."""
    from .diagnostics import UserError, error

    hint = f"{flag} takes a file (created when missing, in a folder that exists)"
    if os.path.isdir(path):
        raise UserError(error("E008", f"{flag}: '{path}' is a folder", hint=hint))
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UserError(error("E008", f"{flag}: the folder '{folder}' does not exist", hint=hint))
    try:
        return Answers(path)
    except (NotAStore, OSError) as exc:
        raise UserError(error("E008", f"{flag}: '{path}' is not a file of answers that can be written ({exc})",
                              hint="name a new file, or one a previous run wrote; the file was left as it was")) from None
