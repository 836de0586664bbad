"""A store of the solver's unsat answers, so that a long verification can be resumed.

A question is a list of Z3 facts; its key is a digest of their structure (Z3's structural hash of
each fact and of each fact's arguments, with the fact's operator and arity) and of the Z3
version, so the same question built again, in another process or another run, has the same key,
and a question that differs in any fact has another (up to a hash collision: each fact
contributes Z3's 32-bit hash and those of its arguments). Only unsat answers are kept: they do
not depend on the time limit or the machine, and they carry no model. A sat question is asked
again (its model is wanted), an unknown one too (it may settle on a quieter machine).

The store is one SQLite file: several processes may read and add at once, and an answer is
written as soon as it is found, so a run that is stopped keeps what it settled.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import z3


def fingerprint(facts) -> str:
    """The key of a question: a digest of its facts' structure, in order."""
    ctx = z3.main_ctx().ref()
    h = hashlib.sha256(z3.get_full_version().encode())
    get_hash, num_args, get_arg = z3.Z3_get_ast_hash, z3.Z3_get_app_num_args, z3.Z3_get_app_arg
    for f in facts:
        if f is True:
            continue
        if not isinstance(f, z3.ExprRef):
            h.update(repr(f).encode())
            continue
        a = f.as_ast()
        parts = [get_hash(ctx, a), f.decl().kind() if z3.is_app(f) else -1]
        if z3.is_app(f):
            k = num_args(ctx, a)
            parts.append(k)
            parts.extend(get_hash(ctx, get_arg(ctx, a, i)) for i in range(k))
        h.update(b"|" + b",".join(str(p).encode() for p in parts))
    return h.hexdigest()


class Answers:
    """The unsat answers kept in a file (created when missing; its folder must exist)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self._db.execute("create table if not exists unsat (key text primary key, seconds real)")
        self.hits = 0      # questions answered from the store in this run
        self.misses = 0    # questions asked of the solver
        self.added = 0     # unsat answers written

    def known(self, key: str) -> bool:
        found = self._db.execute("select 1 from unsat where key = ?", (key,)).fetchone() is not None
        if found:
            self.hits += 1
        else:
            self.misses += 1
        return found

    def add(self, key: str, seconds: float) -> None:
        self._db.execute("insert or ignore into unsat values (?, ?)", (key, round(seconds, 3)))
        self.added += 1

    def __len__(self) -> int:
        return self._db.execute("select count(*) from unsat").fetchone()[0]

    def summary(self) -> str:
        return (f"{self.hits} of {self.hits + self.misses} solver questions answered from {self.path} "
                f"({self.added} unsat answers added)")


def open_answers(path: str, flag: str = "--answers") -> Answers:
    """The store at path for a command-line option, or a diagnostic (exit 2): the path is a
    folder, its folder is missing or not writable, or the file is not a store of answers."""
    import os

    from .diagnostics import UserError, error

    hint = f"{flag} takes a file (created when missing, in a folder that exists)"
    if os.path.isdir(path):
        raise UserError(error("E008", f"{flag}: '{path}' is a folder", hint=hint))
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UserError(error("E008", f"{flag}: the folder '{folder}' does not exist", hint=hint))
    try:
        store = Answers(path)
        len(store)
    except sqlite3.DatabaseError as exc:
        raise UserError(error("E008", f"{flag}: '{path}' is not a file of answers ({exc})",
                              hint="name a new file, or one a previous run wrote")) from None
    return store
