"""Diagnostics: Diagnostic(code, severity, message, span, hint, context) in text and JSON form.

Every user mistake becomes one of these; the codes are stable and listed in docs/errors.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from .source import Span, excerpt, visible

# Stable codes: code -> one-line title. docs/errors.md explains each (a test keeps them in step).
CODES: dict[str, str] = {
    # input
    "E001": "cannot read file",
    "E002": "file is not UTF-8 text",
    "E003": "file too large",
    "E004": "empty spec",
    "E005": "nesting too deep",
    "E006": "invalid command-line usage",
    "E007": "invalid trace file",
    "E008": "cannot write output",
    "E009": "invalid results file",
    # syntax
    "E010": "syntax error",
    "E011": "unexpected character",
    "E012": "unterminated string",
    "E013": "reserved word used as a name",
    # names
    "E101": "unknown name",
    "E102": "duplicate name",
    "E103": "unknown type",
    "E104": "unknown field",
    "E105": "unknown action",
    "E106": "ambiguous enum value",
    # types
    "E201": "type mismatch",
    "E202": "wrong number of arguments",
    "E203": "cannot assign to this",
    "E204": "not a zone",
    "E205": "not a finite domain",
    "E206": "not indexable",
    "E207": "value out of range",
    "E208": "invalid range",
    "E209": "recursive definition",
    "E210": "operation not allowed on this zone",
    # structure
    "E301": "missing citation",
    "E302": "missing declaration",
    "E303": "declared more than once",
    "E304": "clause not allowed here",
    "E305": "invalid scenario",
    "E306": "citation not found in the rulebook",
    "E307": "unknown rulebook",
    # warnings
    "W401": "missing doc comment",
    "W402": "unused declaration",
}


@dataclass(frozen=True)
class Diagnostic:
    """One finding about the user's input: where, what, and at most one hint."""

    code: str
    message: str
    span: Span | None = None
    hint: str | None = None
    context: str | None = None  # the rule or paragraph it belongs to, e.g. `play_card (de: "3. Machtkampf")`
    severity: str = "error"

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def render(self) -> str:
        """The text form: `file:line:col: error[CODE]: message`, the line, a caret, hint, context."""
        where = f"{self.span}: " if self.span else ""
        out = [f"{where}{self.severity}[{self.code}]: {self.message}"]
        if self.span:
            out.extend("  " + line for line in excerpt(self.span))
        if self.hint:
            out.append(f"  hint: {self.hint}")
        if self.context:
            out.append(f"  in: {self.context}")
        # what the user wrote (a name, a file name, a move typed) is quoted in them: its control
        # characters shown, not sent to the terminal (the JSON form escapes them)
        return visible("\n".join(out), keep="\t\n")

    def to_json(self) -> dict:
        return {"code": self.code, "severity": self.severity, "message": self.message,
                "span": self.span.to_json() if self.span else None,
                "hint": self.hint, "context": self.context}


def error(code: str, message: str, span: Span | None = None, hint: str | None = None,
          context: str | None = None) -> Diagnostic:
    assert code in CODES, code
    return Diagnostic(code, message, span, hint, context, "error")


def warning(code: str, message: str, span: Span | None = None, hint: str | None = None,
            context: str | None = None) -> Diagnostic:
    assert code in CODES, code
    return Diagnostic(code, message, span, hint, context, "warning")


class UserError(Exception):
    """Raised to abandon a command because of the user's input; carries its diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic):
        self.diagnostics = diagnostics if isinstance(diagnostics, list) else [diagnostics]
        super().__init__("\n".join(d.render() for d in self.diagnostics))


def did_you_mean(name: str, candidates) -> str | None:
    """A 'did you mean' hint for a misspelt name, or None when nothing is close."""
    import difflib

    match = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean '{match[0]}'?" if match else None
