"""Load a spec file through every front-end stage: path -> (ir.Spec, warnings), or UserError.

parse -> check -> lower, with the diagnostics of a file reported together.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from . import ir
from .check import check
from .diagnostics import Diagnostic, UserError, error
from .lower import lower
from .parse import find_rules_files, parse_file


@dataclass
class Loaded:
    path: str
    spec: ir.Spec | None
    diagnostics: list[Diagnostic]

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]


def load(path: str) -> Loaded:
    """Parse, check and lower one file; never raises for the user's mistakes."""
    try:
        spec_ast = parse_file(path)
    except UserError as exc:
        return Loaded(path, None, exc.diagnostics)
    diagnostics, model = check(spec_ast)
    if any(d.is_error for d in diagnostics):
        return Loaded(path, None, diagnostics)
    return Loaded(path, lower(model), diagnostics)


def load_spec(path: str) -> tuple[ir.Spec, list[Diagnostic]]:
    """Like load(), but raises UserError when the spec has errors; returns (spec, warnings)."""
    loaded = load(path)
    if loaded.spec is None:
        raise UserError(loaded.errors or loaded.diagnostics)
    return loaded.spec, loaded.diagnostics


def load_specs(paths: list[str]) -> list[tuple[str, ir.Spec]]:
    """(path, spec) of each file; where any has errors, UserError with every file's errors (each
    told, not only the first file's), before any work starts."""
    loaded, errors = [], []
    for path in paths:
        try:
            loaded.append((path, load_spec(path)[0]))
        except UserError as exc:
            errors += exc.diagnostics
    if errors:
        raise UserError(errors)
    return loaded


def expand_paths(paths: list[str], default_dir: str | None = None) -> list[str]:
    """Spec files from the command line: files as given, directories searched for .rules files;
    each file once (the first time it is named)."""
    if not paths:
        if default_dir is None or not os.path.isdir(default_dir):
            raise UserError(error("E006", "no spec given", hint="pass one or more .rules files"))
        paths = [default_dir]
    out: list[str] = []
    for p in paths:
        if not p:  # ('' is the current folder to the system)
            raise _about(p, UserError(error("E001", "an empty file name", hint="pass one or more .rules files")))
        if os.path.isdir(p):
            found = find_rules_files(p)
            if not found:
                raise _about(p, UserError(error("E001", f"'{p}' is a directory with no .rules files in it",
                                                hint="pass a .rules file or a folder that holds some")))
            out.extend(found)
        else:
            out.append(p)
    # a spec named twice (given twice, or found again through a folder or a link) is read once
    seen: set = set()
    return [f for f in out if not (os.path.realpath(f) in seen or seen.add(os.path.realpath(f)))]


def _about(path: str, exc: UserError) -> UserError:
    """A UserError about one SPEC of the command line, which it names (`exc.path`): `check --json`
    reports it as that spec's entry (cli.main_error)."""
    exc.path = path
    return exc


def can_create_folder(path: str, flag: str, hint: str | None = None) -> None:
    """A folder that is there, or can be made (its nearest existing parent a writable folder that
    takes files), checked before the work whose results go there: else E008 (exit 2). Nothing is
    made."""
    if os.path.islink(path) and not os.path.exists(path):
        raise UserError(error("E008", f"{flag}: '{path}' is a link to nothing", hint=f"{flag} takes a folder"))
    parent = os.path.abspath(path)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise UserError(error("E008", f"{flag}: cannot write in '{path}': '{parent}' is a file, not a folder",
                              hint=hint or f"{flag} takes a folder (it is created if missing)"))
    if not os.access(parent, os.W_OK):
        raise UserError(error("E008", f"{flag}: cannot write in '{path}': '{parent}' is not writable",
                              hint=hint or "choose a folder you can write in"))
    takes_files(parent, f"{flag}: cannot write in '{path}'", hint or "choose a folder you can write in")


def usable_folder(path: str, flag: str, hint: str | None = None) -> str:
    """The folder, made now if missing, once a file can be written in it (can_create_folder, then
    a file made and removed there); else E008 (exit 2)."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UserError(error("E008", f"{flag}: '{path}' exists and is not a folder", hint=f"{flag} takes a folder"))
    can_create_folder(path, flag, hint)  # (a folder that is there already: tried there)
    if os.path.isdir(path):
        return path
    try:
        os.makedirs(path)
    except OSError as exc:
        raise UserError(error("E008", f"{flag}: cannot write in '{path}': {exc.strerror or exc}",
                              hint=hint or "choose a folder you can write in")) from None
    takes_files(path, f"{flag}: cannot write in '{path}'", hint or "choose a folder you can write in")
    return path


def takes_files(folder: str, what: str, hint: str = "choose a folder you can write in") -> None:
    """E008 (what: its reason) before the work where the folder takes no file, whatever its
    permissions say (Linux's /proc): a new temporary file is made there and removed (never one
    of the user's names)."""
    import tempfile
    try:
        fd, probe = tempfile.mkstemp(prefix=".rulespec-", dir=folder)
        os.close(fd)
        os.remove(probe)
    except OSError as exc:
        raise UserError(error("E008", f"{what}: {exc.strerror or exc}", hint=hint)) from None


def new_file_folder(path: str) -> str:
    """The folder a new file at path goes into (a link's target's), checked before the work: it
    is there, a folder, and takes files; else E008 (exit 2)."""
    folder = os.path.dirname(os.path.realpath(path))
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise UserError(error("E008", f"cannot write '{path}': '{folder}' is a file, not a folder",
                              hint="give a file name in a folder"))
    if not os.path.isdir(folder):
        raise UserError(error("E008", f"cannot write '{path}': the folder '{folder}' does not exist",
                              hint="create the folder first"))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(error("E008", f"cannot write '{path}': the folder '{folder}' is not writable",
                              hint="choose a folder you can write in"))
    takes_files(folder, f"cannot write '{path}'")
    return folder
