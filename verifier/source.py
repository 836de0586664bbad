"""Source text and spans: a Span(file, line, col, end_line, end_col) and the caret excerpt."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """A region of a source file; lines and columns count from 1, end_col is exclusive."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "col": self.col,
                "end_line": self.end_line, "end_col": self.end_col}


NO_SPAN = Span("<builtin>", 0, 0, 0, 0)


class SourceFile:
    """The text of one file, kept so that diagnostics can quote its lines."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.lines = text.split("\n")

    def line(self, n: int) -> str:
        return self.lines[n - 1] if 1 <= n <= len(self.lines) else ""

    def span_at(self, offset: int, length: int = 1) -> Span:
        """The span of `length` characters starting at character `offset`."""
        line = self.text.count("\n", 0, offset) + 1
        start = self.text.rfind("\n", 0, offset) + 1
        col = offset - start + 1
        return Span(self.path, line, col, line, col + max(length, 1))

    def span_within_line(self, start: int, end: int) -> Span:
        """The span of text[start:end], cut at the end of its first line."""
        stop = self.text.find("\n", start)
        return self.span_at(start, (min(end, stop) if stop >= 0 else end) - start)


def json_steps(text: str, steps) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Walk the JSON document `text` (one json.loads read) along `steps`: a str is a key of the
    object reached so far (its last member of that name, as json.loads takes it; never a key of a
    value nested in it), an int an index of the array reached so far. For each step the document
    has, in order: ((start, end) of the key, or of the element's first character; (start, end) of
    its value). The walk stops at the first step the document lacks."""
    import json

    decoder = json.JSONDecoder()
    n = len(text)

    def skip(i: int, mark: str = "") -> int:  # past whitespace, then past the mark if it is there
        while i < n and text[i] in " \t\n\r":
            i += 1
        if mark and i < n and text[i] == mark:
            i = skip(i + 1)
        return i

    found: list = []
    try:
        i = skip(0)
        for step in steps:
            if isinstance(step, str):
                if text[i] != "{":
                    break
                j, hit = skip(i + 1), None
                while text[j] != "}":
                    name, end = decoder.raw_decode(text, j)
                    k = skip(end, ":")
                    if name == step:
                        hit = ((j, end), k)
                    _value, j = decoder.raw_decode(text, k)
                    j = skip(j, ",")
                if hit is None:
                    break
                key, i = hit
            else:
                if text[i] != "[":
                    break
                j = skip(i + 1)
                for _k in range(step):
                    if text[j] == "]":
                        break
                    _value, j = decoder.raw_decode(text, j)
                    j = skip(j, ",")
                if text[j] == "]":
                    break
                key, i = (j, j + 1), j
            _value, end = decoder.raw_decode(text, i)
            found.append((key, (i, end)))
    except (ValueError, IndexError, RecursionError):
        pass
    return found


_REGISTRY: dict[str, SourceFile] = {}


def register(source: SourceFile) -> None:
    """Remember a file's text so excerpt() can quote it later."""
    _REGISTRY[source.path] = source


def lookup(path: str) -> SourceFile | None:
    return _REGISTRY.get(path)


def snippet(span: Span | None, limit: int = 80) -> str:
    """The source text a span covers (its first line), shortened to `limit` characters."""
    if span is None:
        return ""
    source = lookup(span.file)
    if source is None:
        return ""
    line = source.line(span.line)
    end = span.end_col - 1 if span.end_line == span.line else len(line)
    text = " ".join(line[span.col - 1:end].split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def excerpt(span: Span, max_width: int = 160) -> list[str]:
    """The numbered source line of `span` and a caret line under it, e.g.

    ``   42 |   move c from hnad[p] to table[p]`` and ``      |               ^^^^``.
    Returns [] when the file's text is unknown.
    """
    source = lookup(span.file)
    if source is None or span.line < 1:
        return []
    text = visible(source.line(span.line).replace("\t", " "))
    start = max(span.col - 1, 0)
    end = span.end_col - 1 if span.end_line == span.line else len(text)
    end = max(end, start + 1)
    if len(text) > max_width:  # keep the caret in view on very long lines
        lo = max(0, min(start - max_width // 2, len(text) - max_width))
        text = ("…" if lo else "") + text[lo:lo + max_width] + ("…" if lo + max_width < len(text) else "")
        shift = lo - (1 if lo else 0)
        start, end = start - shift, min(end - shift, len(text))
    width = len(str(span.line))
    gutter = " " * width
    carets = "^" * max(1, _columns(text[start:min(end, len(text) + 1)]) or 1)
    # a wide character (CJK, most emoji) takes two columns on a terminal: the caret counts columns
    return [f" {span.line} | {text}", f" {gutter} | {' ' * _columns(text[:start])}{carets}"]


_PICTURES = {**{c: 0x2400 + c for c in range(0x20)}, 0x7F: 0x2421}  # U+2400..: a control character's picture


def visible(text: str, keep: str = "") -> str:
    """text with each control character (but those in keep) shown as its picture (ESC as ␛, NUL
    as ␀; one of 0x80 to 0x9f as �): one character for one, so that a caret's column still holds,
    and none of them reaches the terminal, where it would act (a colour, a bell, the cursor moved)."""
    if text.isprintable():
        return text
    return "".join(chr(_PICTURES[o]) if (o := ord(ch)) in _PICTURES and ch not in keep else
                   "\ufffd" if 0x80 <= o <= 0x9F else ch for ch in text)


def _columns(text: str) -> int:
    """How many terminal columns text takes: two for a wide character, none for a combining mark."""
    import unicodedata

    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
