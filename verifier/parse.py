"""Parse a .rules file: bytes on disk -> ast.Spec with source spans, or diagnostics.

Lark (LALR, contextual lexer) reads grammar/rules.lark; a non-recursive Transformer builds the AST.
Hostile input (a directory, random bytes, a huge file, deep nesting) becomes a diagnostic, never
a traceback. When a file has syntax errors, each top-level declaration is parsed on its own so
that one run reports the first error of every broken declaration.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.exceptions import VisitError
from lark.visitors import Transformer_NonRecursive, v_args

from . import ast
from .diagnostics import Diagnostic, UserError, error
from .source import SourceFile, Span, register

# grammar/rules.lark at the top of the project; verifier/grammar/rules.lark links to it and ships
# inside the installed package.
GRAMMAR = Path(__file__).resolve().parent / "grammar" / "rules.lark"

MAX_BYTES = 2_000_000   # a real spec is tens of kilobytes
MAX_DEPTH = 200         # nesting of brackets and expressions
MAX_DIGITS = 1000       # of an integer literal
MAX_LOOPS = 16          # `for` statements inside each other
MAX_SYNTAX_ERRORS = 25

TOP_KEYWORDS = ("game", "edition", "source", "players", "enum", "record", "card", "const", "param",
                "var", "zone", "def", "proc", "init", "action", "invariant", "reachable", "terminates",
                "bound", "end", "stat", "scenario")
_DECL_START = re.compile(r"^(?:%s)\b" % "|".join(TOP_KEYWORDS), re.M)
RESERVED = frozenset(re.search(r"\(\?!\((.*?)\)\\b\)", GRAMMAR.read_text()).group(1).split("|"))


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(GRAMMAR.read_text(), parser="lalr", lexer="contextual", propagate_positions=True,
                maybe_placeholders=False, lexer_callbacks={"DOC": _DocCollector.collect})


class _DocCollector:
    """Collects `///` doc comments by line while the lexer runs (they are ignored tokens)."""

    current: list[tuple[int, str]] | None = None

    @classmethod
    def collect(cls, token: Token) -> Token:
        if cls.current is not None:
            cls.current.append((token.line, token.value[3:].strip()))
        return token


# ---- reading -----------------------------------------------------------------------------

def read_source(path: str) -> SourceFile:
    """Read a spec file as UTF-8 text; raises UserError (E001-E004) for anything unreadable."""
    if not path:  # ('' is the current folder to the system)
        raise UserError(error("E001", "an empty file name", hint="pass a .rules file"))
    p = Path(path)
    if not p.exists():
        if p.is_symlink():
            raise UserError(error("E001", f"'{path}' is a link to nothing ('{os.readlink(path)}')",
                                  hint="point the link at a .rules file, or pass the file itself"))
        raise UserError(error("E001", f"no such file: '{path}'", hint=_missing_hint(p)))
    if p.is_dir():
        raise UserError(error("E001", f"'{path}' is a directory, not a .rules file",
                              hint="pass a .rules file" + _first_rules_hint(p)))
    if not p.is_file():
        raise UserError(error("E001", f"'{path}' is not a regular file",
                              hint="pass a .rules file (a device or a pipe is not read: save its text to a file first)"))
    try:
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise UserError(error(
                "E003", f"'{path}' is {size / 1e6:.1f} MB; spec files are read up to {MAX_BYTES / 1e6:.0f} MB",
                hint="is this really a .rules file? split a very large spec into several files"))
        data = p.read_bytes()
    except PermissionError:
        raise UserError(error("E001", f"permission denied: '{path}'")) from None
    except OSError as exc:
        raise UserError(error("E001", f"cannot read '{path}': {exc.strerror or exc}")) from None
    return decode_source(path, data)


def read_text(path: str, what: str, limit: int, hint: str) -> SourceFile:
    """A file of the user's other than a spec (a trace, a results file, a difference report): read
    as UTF-8 text (a BOM allowed) up to `limit` bytes, whatever the file is (a pipe such as
    /dev/stdin or <(...) is read; /dev/zero stops at the limit), and kept for diagnostics that quote
    it. E001 where it cannot be read, E002 at its first byte that is not UTF-8, E003 where it is larger."""
    if not os.path.exists(path):
        raise UserError(error("E001", f"no such file: '{path}'", hint=hint))
    if os.path.isdir(path):
        raise UserError(error("E001", f"'{path}' is a directory, not {what}", hint=hint))
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise UserError(error("E001", f"cannot read '{path}': {exc.strerror or exc}", hint=hint)) from None
    if len(data) > limit:
        raise UserError(error("E003", f"'{path}' is larger than {limit / 1e6:g} MB, too large for {what}", hint=hint))
    return decode_source(path, data, hint, nul_ok=True)


def decode_source(path: str, data: bytes, hint: str = "save the file as UTF-8 text; is it a .rules file?",
                  nul_ok: bool = False) -> SourceFile:
    """Decode bytes as UTF-8 (a BOM is allowed) into a SourceFile kept for diagnostics; raises
    UserError E002 at the first byte that is not UTF-8, or at a NUL byte unless `nul_ok`."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        shown = data.decode("utf-8", errors="replace")
        source = SourceFile(path, shown)
        register(source)
        prefix = data[:exc.start].decode("utf-8", errors="replace")
        raise UserError(error(
            "E002", f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not valid UTF-8",
            source.span_at(len(prefix)), hint=hint)) from None
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    source = SourceFile(path, text)
    register(source)
    if not nul_ok and "\x00" in text:
        raise UserError(error("E002", "the file contains NUL bytes: it is not a text file",
                              source.span_at(text.index("\x00")),
                              hint="pass a .rules text file"))
    return source


def _missing_hint(p: Path) -> str | None:
    parent = p.parent if str(p.parent) else Path(".")
    if parent.is_dir():
        # the names without their common .rules, which made any two names look alike
        # (nonexist.rules suggested comment.rules)
        stems = {c.stem: c.name for c in parent.iterdir() if c.suffix == ".rules"}
        import difflib
        close = difflib.get_close_matches(p.stem if p.suffix == ".rules" else p.name, sorted(stems), n=1, cutoff=0.6)
        if close:
            return f"did you mean '{stems[close[0]]}'?"
    return "check the path; spec files end in .rules"


def _first_rules_hint(p: Path) -> str:
    found = sorted(p.rglob("*.rules"))
    return f", e.g. '{found[0]}'" if found else f"; '{p}' holds none"


# ---- parsing -----------------------------------------------------------------------------

def parse_file(path: str) -> ast.Spec:
    """Read and parse one file; raises UserError with every syntax error found."""
    return parse_source(read_source(path))


def parse_text(text: str, path: str = "<string>") -> ast.Spec:
    """Parse spec text directly (for tests and tools); raises UserError on syntax errors."""
    source = SourceFile(path, text)
    register(source)
    return parse_source(source)


def parse_source(source: SourceFile) -> ast.Spec:
    text = source.text
    if not re.sub(r"//[^\n]*|\s", "", text):
        raise UserError(error("E004", f"'{source.path}' is empty",
                              Span(source.path, 1, 1, 1, 1),
                              hint="a spec starts with `game <name>`, then `players`, types, state and actions"))
    depth = _bracket_depth_error(source)
    if depth:
        raise UserError(depth)
    try:
        spec = _parse_chunk(source, text, 0)
    except UnexpectedInput:
        raise UserError(_all_syntax_errors(source)) from None
    except VisitError as exc:  # a diagnostic of the tree's transformer (an integer too long)
        if isinstance(exc.orig_exc, UserError):
            raise exc.orig_exc from None
        raise
    deep = _ast_depth_error(spec, source)
    if deep:
        raise UserError(deep)
    if not spec.decls:
        raise UserError(error("E004", f"'{source.path}' holds no declarations",
                              Span(source.path, 1, 1, 1, 1),
                              hint="a spec starts with `game <name>`, then `players`, types, state and actions"))
    return spec


def _parse_chunk(source: SourceFile, text: str, line_offset: int) -> ast.Spec:
    docs: list[tuple[int, str]] = []
    _DocCollector.current = docs
    try:
        tree = _parser().parse(text)
    finally:
        _DocCollector.current = None
    builder = _Builder(source.path, line_offset, {line + line_offset: doc for line, doc in docs})
    return builder.transform(tree)


def _all_syntax_errors(source: SourceFile) -> list[Diagnostic]:
    """Parse each top-level declaration on its own; return the first error of each broken one."""
    text = source.text
    starts = [m.start() for m in _DECL_START.finditer(text)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    diagnostics: list[Diagnostic] = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        chunk = text[start:end]
        if not chunk.strip():
            continue
        line_offset = text.count("\n", 0, start)
        try:
            _parse_chunk(source, chunk, line_offset)
        except UnexpectedInput as exc:
            diagnostics.append(_syntax_diagnostic(source, chunk, exc, line_offset))
        except VisitError as exc:  # a diagnostic of the transformer (an integer too long)
            if not isinstance(exc.orig_exc, UserError):
                raise
            diagnostics.extend(exc.orig_exc.diagnostics)
        if len(diagnostics) >= MAX_SYNTAX_ERRORS:
            diagnostics.append(error("E010", f"too many syntax errors; stopped after {MAX_SYNTAX_ERRORS}"))
            break
    if not diagnostics:  # the whole failed but every part parsed: report the whole-file error
        try:
            _parse_chunk(source, text, 0)
        except UnexpectedInput as exc:
            diagnostics.append(_syntax_diagnostic(source, text, exc, 0))
    return diagnostics


_TERMINAL_NAMES = {
    "NAME": "a name", "INT": "a number", "STRING": "a string", "$END": "the end of the file",
    "ASSIGN_OP": "':='", "CMP_OP": "a comparison", "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/' or '%'",
    "QUANT": "sum/all/any/min/max", "PROPERTY_KW": "invariant/reachable/terminates/bound",
    "RECORD_KW": "record/card", "PILE_KW": "'pile'", "BAG_KW": "'bag'",
}

# (message, hint, examples of bad input) for lark's match_examples.
_EXAMPLES = [
    ("'=' is not assignment", "assign with ':=' (or '+=', '-='); compare with '=='",
     ["init { x = 1 }", "action a() cite \"x\" { x = 1 }"]),
    ("a citation needs a quoted locator", 'write cite "Section heading" "a few quoted words"',
     ["action a() cite { }", "invariant i cite : true"]),
    ("a block is missing its braces", "write the statements inside { ... }",
     ["action a() cite \"x\" skip", "init skip"]),
]


def _syntax_diagnostic(source: SourceFile, chunk: str, exc: UnexpectedInput, line_offset: int) -> Diagnostic:
    line = (getattr(exc, "line", 1) or 1) + line_offset
    col = getattr(exc, "column", 1) or 1
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        last = len(source.lines)
        while last > 1 and not source.line(last).strip():
            last -= 1
        end_col = len(source.line(last)) + 1
        return error("E010", "unexpected end of file", Span(source.path, last, end_col, last, end_col + 1),
                     hint=_expected_hint(getattr(exc, "expected", None) or getattr(exc, "accepts", None)))
    if isinstance(exc, UnexpectedCharacters):
        ch = chunk[exc.pos_in_stream] if exc.pos_in_stream < len(chunk) else ""
        span = Span(source.path, line, col, line, col + 1)
        if ch == '"':
            return error("E012", "unterminated string", Span(source.path, line, col, line, len(source.line(line)) + 1),
                         hint='close the string with " on the same line')
        hints = {"&": "write 'and'", "|": "write 'or'", "!": "write 'not' (or '!=' to compare)",
                 "=": "assign with ':=', compare with '=='", ";": "statements need no ';'",
                 "'": 'strings use double quotes: "..."', "#": "comments start with //"}
        shown = repr(ch)[1:-1] if ch.isprintable() else f"\\u{ord(ch):04x}" if ch else "?"
        return error("E011", f"unexpected character '{shown}'", span,
                     hint=hints.get(ch) or _expected_hint(exc.allowed))
    assert isinstance(exc, UnexpectedToken)
    token = exc.token
    width = max(len(str(token.value)), 1)
    span = Span(source.path, line, col, line, col + width)
    previous = exc.token_history[-1] if getattr(exc, "token_history", None) else None
    if token.type != "NAME" and str(token.value) in RESERVED and "NAME" in exc.expected and (
            previous is not None and str(previous.value) in _NAMING_KEYWORDS):
        return error("E013", f"'{token.value}' is a reserved word and cannot be used as a name", span,
                     hint=f"choose another name, e.g. '{token.value}_'")
    try:
        label = exc.match_examples(_parser().parse, [(m, ex) for m, _h, ex in _EXAMPLES],
                                   use_accepts=True)
    except Exception:  # match_examples is a best effort: never let it hide the real error
        label = None
    if label:
        hint = next(h for m, h, _ex in _EXAMPLES if m == label)
        return error("E010", label if f"'{token.value}'" in label else f"{label} (found '{token.value}')", span, hint=hint)
    return error("E010", f"unexpected '{token.value}'", span, hint=_expected_hint(exc.expected))


# keywords that are followed by a new name: a reserved word right after them is E013
_NAMING_KEYWORDS = {"game", "edition", "enum", "record", "card", "const", "param", "var", "zone", "def", "proc",
                    "action", "invariant", "reachable", "terminates", "bound", "end", "stat", "scenario", "let",
                    "for", "extends", "{", ",", "("}


def _expected_hint(expected) -> str | None:
    if not expected:
        return None
    parser = _parser()
    names = []
    for name in sorted(expected):
        if name in _TERMINAL_NAMES:
            names.append(_TERMINAL_NAMES[name])
            continue
        try:
            pattern = parser.get_terminal(name).pattern
        except KeyError:
            continue
        if pattern.type == "str":
            names.append(f"'{pattern.value}'")
    names = sorted(set(names))
    if not names:
        return None
    if len(names) > 8:
        return "expected one of: " + ", ".join(names[:8]) + ", ..."
    return "expected " + (names[0] if len(names) == 1 else "one of: " + ", ".join(names))


def _bracket_depth_error(source: SourceFile) -> Diagnostic | None:
    """Reject absurd bracket nesting before the parser and the tree walks see it."""
    depth = 0
    in_string = False
    text = source.text
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 1
            elif ch == '"' or ch == "\n":
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "/" and text.startswith("//", i):
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        elif ch in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                return error("E005", f"brackets nested more than {MAX_DEPTH} deep", source.span_at(i),
                             hint="split the expression with `let` or a `def`")
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        i += 1
    return None


def _ast_depth_error(spec: ast.Spec, source: SourceFile) -> Diagnostic | None:
    """Reject expressions nested too deeply for the recursive passes (e.g. 'not not not ...')."""
    stack = [(spec, 0, 0)]
    while stack:
        node, depth, loops = stack.pop()
        if depth > MAX_DEPTH:
            return error("E005", f"expression nested more than {MAX_DEPTH} deep (each operator of a chain such as "
                                 "a + b + c counts one level, an `if` or a `for` two)",
                         node.span, hint="split the expression with `let` or a `def`, or flatten the blocks")
        if isinstance(node, ast.For):
            loops += 1
            if loops > MAX_LOOPS:  # (the interpreter's Python takes 20 nested loops in a function)
                return error("E005", f"`for` loops nested more than {MAX_LOOPS} deep", node.span,
                             hint="flatten the loops: fewer `for` statements inside each other")
        stack.extend((child, depth + 1, loops) for child in ast.children(node))
    return None


# ---- tree -> AST -------------------------------------------------------------------------

def _unquote(token: str) -> str:
    body = token[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


@v_args(meta=True)
class _Builder(Transformer_NonRecursive):
    """One method per grammar rule and alias, named exactly like them."""

    def __init__(self, path: str, line_offset: int, docs: dict[int, str]):
        super().__init__(visit_tokens=False)
        self.path = path
        self.line_offset = line_offset
        self.docs = docs

    # helpers
    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.path, 0, 0, 0, 0)
        return Span(self.path, meta.line + self.line_offset, meta.column,
                    meta.end_line + self.line_offset, meta.end_column)

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.path, tok.line + self.line_offset, tok.column,
                    (tok.end_line or tok.line) + self.line_offset, tok.end_column or tok.column + len(tok))

    def _doc(self, meta) -> str | None:
        if getattr(meta, "empty", True):
            return None
        line = meta.line + self.line_offset - 1
        lines = []
        while line in self.docs:
            lines.append(self.docs[line])
            line -= 1
        return " ".join(reversed(lines)) or None

    def _ident(self, tok: Token) -> ast.Ident:
        return ast.Ident(self._tok_span(tok), str(tok))

    # declarations
    def start(self, meta, children):
        return ast.Spec(self._span(meta), self.path, tuple(children))

    def game_decl(self, meta, c):
        return ast.GameDecl(self._span(meta), self._doc(meta), str(c[0]), _unquote(c[1]) if len(c) > 1 else None)

    def edition_decl(self, meta, c):
        return ast.EditionDecl(self._span(meta), self._doc(meta), str(c[0]), _unquote(c[1]) if len(c) > 1 else None)

    def source_decl(self, meta, c):
        return ast.SourceDecl(self._span(meta), self._doc(meta), _unquote(c[0]))

    def players_decl(self, meta, c):
        cite = c[2] if len(c) > 2 else None
        return ast.PlayersDecl(self._span(meta), self._doc(meta), self._int(meta, c[0]), self._int(meta, c[1]), cite)

    def enum_decl(self, meta, c):
        name = str(c[0])
        parent = c[1] if len(c) == 3 else None
        return ast.EnumDecl(self._span(meta), self._doc(meta), name, parent, c[-1])

    def extends(self, meta, c):
        return self._ident(c[0])

    def name_list(self, meta, c):
        return tuple(self._ident(t) for t in c)

    def record_decl(self, meta, c):
        return ast.RecordDecl(self._span(meta), self._doc(meta), str(c[1]), tuple(c[2:]), str(c[0]) == "card")

    def field_decl(self, meta, c):
        return ast.FieldDecl(self._span(meta), str(c[0]), c[1])

    def field(self, meta, c):
        return ast.Field(self._span(meta), c[0], str(c[1]))

    def const_decl(self, meta, c):
        if len(c) == 3:
            return ast.ConstDecl(self._span(meta), self._doc(meta), str(c[0]), c[1], c[2])
        return ast.ConstDecl(self._span(meta), self._doc(meta), str(c[0]), None, c[1])

    def param_decl(self, meta, c):
        return ast.ParamDecl(self._span(meta), self._doc(meta), str(c[0]), c[1], tuple(c[2:]))

    def var_decl(self, meta, c):
        return ast.VarDecl(self._span(meta), self._doc(meta), str(c[0]), c[1], tuple(c[2:]))

    def zone_decl(self, meta, c):
        name = str(c[0])
        rest = list(c[1:])
        index = None
        if isinstance(rest[0], tuple) and rest[0] and rest[0][0] == "index":
            index = rest.pop(0)[1]
        kind = rest.pop(0)
        elem = rest.pop(0)
        return ast.ZoneDecl(self._span(meta), self._doc(meta), name, index, kind, elem, tuple(rest))

    def index(self, meta, c):
        return ("index", c[0])

    def zone_kind(self, meta, c):
        return str(c[0])

    def def_decl(self, meta, c):
        name = str(c[0])
        params = c[1] if len(c) == 4 else ()
        return ast.DefDecl(self._span(meta), self._doc(meta), name, params, c[-2], c[-1])

    def proc_decl(self, meta, c):
        name = str(c[0])
        rest = list(c[1:])
        params = rest.pop(0) if rest and isinstance(rest[0], tuple) else ()
        body = rest.pop()
        return ast.ProcDecl(self._span(meta), self._doc(meta), name, params, tuple(rest), body)

    def params(self, meta, c):
        return tuple(c)

    def param(self, meta, c):
        return ast.ParamSpec(self._span(meta), str(c[0]), c[1])

    def init_decl(self, meta, c):
        return ast.InitDecl(self._span(meta), self._doc(meta), tuple(c[:-1]), c[-1])

    def action_decl(self, meta, c):
        name = str(c[0])
        rest = list(c[1:])
        params = rest.pop(0) if rest and isinstance(rest[0], tuple) else ()
        body = rest.pop()
        return ast.ActionDecl(self._span(meta), self._doc(meta), name, params, tuple(rest), body)

    def property_decl(self, meta, c):
        return ast.PropertyDecl(self._span(meta), self._doc(meta), str(c[0]), str(c[1]), tuple(c[2:-1]), c[-1])

    def prop_expr(self, meta, c):
        return ast.PropExpr(self._span(meta), c[0])

    def prop_ranking(self, meta, c):
        return ast.PropRanking(self._span(meta), c[0], tuple(c[1:]))

    def prop_bound(self, meta, c):
        return ast.PropBound(self._span(meta), c[0], c[1], str(c[2]), self._tok_span(c[2]))

    def end_decl(self, meta, c):
        return ast.EndDecl(self._span(meta), self._doc(meta), str(c[0]), tuple(c[1:-1]), c[-1])

    def stat_decl(self, meta, c):
        rest = list(c[1:])
        params = rest.pop(0) if rest and isinstance(rest[0], tuple) else ()
        return ast.StatDecl(self._span(meta), self._doc(meta), str(c[0]), params, tuple(rest[:-1]), rest[-1])

    def scenario_decl(self, meta, c):
        clauses = tuple(x for x in c[1:] if isinstance(x, (ast.Cite, ast.When, ast.By, ast.Where, ast.Visible,
                                                             ast.Refill, ast.Exhausted, ast.ExpectViolated,
                                                             ast.Lemma)))
        steps = tuple(x for x in c[1:] if x not in clauses)
        return ast.ScenarioDecl(self._span(meta), self._doc(meta), str(c[0]), clauses, steps)

    # clauses
    def cite(self, meta, c):
        return ast.Cite(self._span(meta), _unquote(c[0]), _unquote(c[1]) if len(c) > 1 else None)

    def when_clause(self, meta, c):
        return ast.When(self._span(meta), c[0])

    def by_clause(self, meta, c):
        return ast.By(self._span(meta), c[0])

    def where_clause(self, meta, c):
        return ast.Where(self._span(meta), c[0])

    def visible_clause(self, meta, c):
        return ast.Visible(self._span(meta), c[0])

    def vis_public(self, meta, c):
        return "public"

    def vis_owner(self, meta, c):
        return "owner"

    def vis_count(self, meta, c):
        return "count"

    def vis_hidden(self, meta, c):
        return "hidden"

    def refill_clause(self, meta, c):
        return ast.Refill(self._span(meta), str(c[0]), len(c) > 1)

    def exhausted_clause(self, meta, c):
        return c[0] if isinstance(c[0], ast.Exhausted) else ast.Exhausted(self._span(meta))

    def exhausted_skip(self, meta, c):
        return ast.Exhausted(self._span(meta), None, None)

    def exhausted_undecided(self, meta, c):
        return ast.Exhausted(self._span(meta), _unquote(c[0]), c[1])

    def expect_clause(self, meta, c):
        return ast.ExpectViolated(self._span(meta), _unquote(c[0]))

    def lemma_clause(self, meta, c):
        return ast.Lemma(self._span(meta))

    # types
    def named_type(self, meta, c):
        return ast.NamedType(self._span(meta), str(c[0]))

    def range_type(self, meta, c):
        return c[0]

    def range(self, meta, c):
        return ast.RangeType(self._span(meta), c[0], c[1])

    def map_type(self, meta, c):
        return ast.MapType(self._span(meta), c[0], c[1])

    def set_type(self, meta, c):
        return ast.SetType(self._span(meta), c[0])

    def order_type(self, meta, c):
        return ast.OrderType(self._span(meta), c[0])

    def bag_type(self, meta, c):
        return ast.BagType(self._span(meta), c[0])

    def pile_type(self, meta, c):
        return ast.PileType(self._span(meta), c[0])

    def opt_type(self, meta, c):
        return ast.OptType(self._span(meta), str(c[0]))

    # scenarios
    def sc_players(self, meta, c):
        return ast.ScPlayers(self._span(meta), self._int(meta, c[0]))

    def sc_seed(self, meta, c):
        return ast.ScSeed(self._span(meta), self._int(meta, c[0]))

    def sc_param(self, meta, c):
        return ast.ScParam(self._span(meta), c[0], c[1])

    def sc_setup(self, meta, c):
        return ast.ScSetup(self._span(meta), c[0])

    def sc_do(self, meta, c):
        return ast.ScDo(self._span(meta), c[0])

    def sc_expect(self, meta, c):
        return ast.ScExpect(self._span(meta), c[0])

    def sc_illegal(self, meta, c):
        return ast.ScIllegal(self._span(meta), c[0])

    def sc_gap(self, meta, c):
        return ast.ScGap(self._span(meta))

    def sc_end(self, meta, c):
        return ast.ScEnd(self._span(meta), str(c[0]) if c else None)

    # statements
    def block(self, meta, c):
        return ast.Block(self._span(meta), tuple(c))

    def assign(self, meta, c):
        return ast.Assign(self._span(meta), c[0], str(c[1]), c[2])

    def move(self, meta, c):
        what = c[0]
        rest = list(c[1:])
        src_end = rest.pop(0) if isinstance(rest[0], str) else "top"
        src = rest.pop(0)
        dst_end = rest.pop(0) if isinstance(rest[0], str) else "top"
        dst = rest.pop(0)
        return ast.Move(self._span(meta), None if what == "all" else what, src, src_end, dst, dst_end)

    def move_all(self, meta, c):
        return "all"

    def top_end(self, meta, c):
        return "top"

    def bottom_end(self, meta, c):
        return "bottom"

    def draw(self, meta, c):
        return ast.Draw(self._span(meta), c[0], c[1], c[2])

    def shuffle(self, meta, c):
        return ast.Shuffle(self._span(meta), c[0])

    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])]
        other = None
        for part in c[2:]:
            if part[0] == "elif":
                branches.append((part[1], part[2]))
            else:
                other = part[1]
        return ast.If(self._span(meta), tuple(branches), other)

    def elif_part(self, meta, c):
        return ("elif", c[0], c[1])

    def else_part(self, meta, c):
        return ("else", c[0])

    def for_stmt(self, meta, c):
        var, domain, body = str(c[0]), c[1], c[-1]
        where = order = None
        for part in c[2:-1]:
            if part[0] == "where":
                where = part[1]
            else:
                order = part[1]
        return ast.For(self._span(meta), var, domain, where, order, body)

    def for_where(self, meta, c):
        return ("where", c[0])

    def for_order(self, meta, c):
        return ("order", c[0])

    def let_stmt(self, meta, c):
        return ast.Let(self._span(meta), str(c[0]), c[1])

    def undecided(self, meta, c):
        return ast.Undecided(self._span(meta), _unquote(c[0]), c[1] if len(c) > 1 else None)

    def skip(self, meta, c):
        return ast.Skip(self._span(meta))

    def call_stmt(self, meta, c):
        return ast.CallStmt(self._span(meta), c[0])

    def lvalue(self, meta, c):
        return ast.LValue(self._span(meta), str(c[0]), tuple(c[1:]))

    def lindex(self, meta, c):
        return ast.LIndex(self._span(meta), c[0])

    def lfield(self, meta, c):
        return ast.LField(self._span(meta), str(c[0]))

    # expressions
    def implies(self, meta, c):
        return ast.Binary(self._span(meta), "implies", c[0], c[1])

    def if_expr(self, meta, c):
        return ast.IfExpr(self._span(meta), c[0], c[1], c[2])

    def or_(self, meta, c):
        return ast.Binary(self._span(meta), "or", c[0], c[1])

    def and_(self, meta, c):
        return ast.Binary(self._span(meta), "and", c[0], c[1])

    def not_(self, meta, c):
        return ast.Unary(self._span(meta), "not", c[0])

    def compare(self, meta, c):
        return ast.Binary(self._span(meta), str(c[1]), c[0], c[2])

    def member(self, meta, c):
        return ast.Binary(self._span(meta), "in", c[0], c[1])

    def not_member(self, meta, c):
        return ast.Binary(self._span(meta), "notin", c[0], c[1])

    def range_lit(self, meta, c):
        return ast.RangeLit(self._span(meta), c[0], c[1])

    def binop(self, meta, c):
        return ast.Binary(self._span(meta), str(c[1]), c[0], c[2])

    def neg(self, meta, c):
        return ast.Unary(self._span(meta), "-", c[0])

    def index_(self, meta, c):
        return ast.Index(self._span(meta), c[0], c[1])

    def int_lit(self, meta, c):
        return ast.IntLit(self._span(meta), self._int(meta, c[0]))

    def _int(self, meta, digits) -> int:
        if len(digits) > MAX_DIGITS:  # (Python converts at most 4,300 digits)
            raise UserError(error("E207", f"an integer of {len(digits):,} digits: outside every range a spec can use",
                                  self._span(meta), hint=f"write at most {MAX_DIGITS} digits"))
        return int(digits)

    def str_lit(self, meta, c):
        return ast.StrLit(self._span(meta), _unquote(c[0]))

    def true_lit(self, meta, c):
        return ast.BoolLit(self._span(meta), True)

    def false_lit(self, meta, c):
        return ast.BoolLit(self._span(meta), False)

    def none_lit(self, meta, c):
        return ast.NoneLit(self._span(meta))

    def players_lit(self, meta, c):
        return ast.PlayersLit(self._span(meta))

    def name(self, meta, c):
        return ast.Name(self._span(meta), str(c[0]))

    def call(self, meta, c):
        args = c[1] if len(c) > 1 else ()
        return ast.Call(self._span(meta), str(c[0]), args, self._tok_span(c[0]))

    def args(self, meta, c):
        return tuple(x if isinstance(x, ast.Arg) else ast.Arg(x.span, None, x) for x in c)

    def named_arg(self, meta, c):
        return ast.Arg(self._span(meta), str(c[0]), c[1])

    def tuple_lit(self, meta, c):
        return ast.TupleLit(self._span(meta), tuple(c))

    def quant(self, meta, c):
        kind, binders = str(c[0]), c[1]
        where = c[2] if len(c) == 4 else None
        return ast.Quant(self._span(meta), kind, binders, where, c[-1])

    def count_q(self, meta, c):
        return ast.Quant(self._span(meta), "count", c[0], c[1] if len(c) > 1 else None, None)

    def binders(self, meta, c):
        return tuple(c)

    def binder(self, meta, c):
        return ast.Binder(self._span(meta), str(c[0]), c[1])

    def quant_where(self, meta, c):
        return c[0]

    def empty_lit(self, meta, c):
        return ast.BagLit(self._span(meta), ())

    def bag_lit(self, meta, c):
        return ast.BagLit(self._span(meta), tuple(c))

    def bag_item(self, meta, c):
        count = None
        rest = list(c)
        if len(rest) >= 2 and not isinstance(rest[1], tuple):
            count = rest.pop(0)
        expr = rest.pop(0)
        binders, where = (rest[0] if rest else ((), None))
        return ast.BagItem(self._span(meta), count, expr, binders, where)

    def bag_for(self, meta, c):
        binders = tuple(x for x in c if isinstance(x, ast.Binder))
        where = next((x for x in c if not isinstance(x, ast.Binder)), None)
        return (binders, where)

    def empty_list(self, meta, c):
        return ast.ListLit(self._span(meta), ())

    def list_lit(self, meta, c):
        return ast.ListLit(self._span(meta), tuple(c))

    def top_call(self, meta, c):
        return ast.TopCall(self._span(meta), c[0])


def find_rules_files(path: str) -> list[str]:
    """The .rules files under a directory, sorted; [] when there are none. The folder given that
    cannot be read raises its error (os.walk dropped it: an unreadable folder looked empty); a
    folder inside it that cannot be read (someone else's) is passed over, as before."""
    out = []

    def unreadable(exc: OSError):
        if os.path.abspath(exc.filename or "") == os.path.abspath(path):
            raise exc

    for root, _dirs, files in os.walk(path, onerror=unreadable):
        out.extend(os.path.join(root, f) for f in files if f.endswith(".rules"))
    return sorted(out)
