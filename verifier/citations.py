"""Resolve a spec's citations in its rulebook: ir.Spec + rulebook folder -> diagnostics (E306, E307).

Every citation's locator and quote must occur in the edition's text. Matching ignores case,
Markdown emphasis, line breaks, hyphenation at line ends and the kind of quotation marks, since
the texts were extracted from PDFs. The project cites the rulebooks and never copies them: this
module only reads the folder it is given.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass

from . import ir
from .diagnostics import Diagnostic, error

ENV = "RULESPEC_RULEBOOKS"

_QUOTES = str.maketrans({"»": '"', "«": '"', "„": '"', "“": '"', "”": '"', "‚": "'", "‘": "'", "’": "'",
                         "–": "-", "—": "-", "\u00ad": None, "\u00a0": " "})


# ... and the ligatures ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ as their letters
_QUOTES.update({c: unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)})


def normalize(text: str) -> str:
    # a rulebook extracted from a PDF or written on a Mac may spell "für" as u and a combining
    # diaeresis (NFC composes it), or "first" with the ligature ﬁ (its letters); the quote typed in
    # a spec reads the same. Not NFKC: it would make "10²" match "102" and "③" match "3"
    text = unicodedata.normalize("NFC", text).translate(_QUOTES).lower()
    text = re.sub(r"[*_`]", "", text)
    text = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", text)       # hyphenation at a line end
    text = re.sub(r"\s+", " ", text)
    return text


def _loose(text: str) -> str:
    """normalize() without any hyphen-space joins, for quotes that cross a split word."""
    return re.sub(r"(\w)- (\w)", r"\1\2", normalize(text))


@dataclass
class Rulebook:
    path: str
    text: str
    norm: str
    loose: str

    def contains(self, phrase: str) -> bool:
        n = normalize(phrase)
        return n in self.norm or _loose(phrase) in self.loose


def find_rulebook(spec: ir.Spec, folder: str | None) -> tuple[str | None, list[str]]:
    """The rulebook file a spec's `source` names: in the rulebooks folder given (--rulebooks, or
    $RULESPEC_RULEBOOKS, the option's default), else next to the spec. The folder the user names
    comes first: a copy beside the spec silently took the place of the rulebook asked for."""
    if not spec.source:
        return None, []
    tried = [os.path.join(folder, spec.source)] if folder else []
    tried.append(os.path.join(os.path.dirname(spec.path) or ".", spec.source))
    for path in tried:
        if os.path.isfile(path):
            return path, tried
    return None, tried


def rulebook_folder(option: str | None) -> str | None:
    return option or os.environ.get(ENV) or None


def shown_path(path: str) -> str:
    """A file's path as a report names it: relative to the current folder where that is shorter
    than the whole path, else the whole path (`rb/rulebook.md`, `/srv/rulebooks/de.txt`)."""
    whole = os.path.abspath(path)
    try:
        relative = os.path.relpath(whole)
    except ValueError:  # (another drive, on Windows)
        return whole
    return relative if len(relative) < len(whole) else whole


def load_rulebook(path: str) -> Rulebook | None:
    """The rulebook's text, or None when the file is not text (a PDF, or NUL bytes), where every
    quote would fail to be found. Bytes that are not UTF-8 (a Latin-1 text) are read as U+FFFD:
    an ASCII quote is still found."""
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(b"%PDF") or b"\x00" in data:
        return None
    text = data.decode("utf-8", errors="replace")
    return Rulebook(path, text, normalize(text), _loose(text))


def all_cites(spec: ir.Spec) -> list[tuple[str, ir.Cite]]:
    """(where, citation) for every citation in the spec."""
    out: list[tuple[str, ir.Cite]] = []
    if spec.players_cite:
        out.append(("players", spec.players_cite))
    if spec.init_cite:
        out.append(("init", spec.init_cite))
    for p in spec.params:
        if p.cite:
            out.append((f"param {p.name}", p.cite))
    for a in spec.actions:
        if a.cite:
            out.append((f"action {a.name}", a.cite))
    for p in spec.properties:
        if p.cite:
            out.append((f"{p.kind} {p.name}", p.cite))
    for e in spec.ends:
        if e.cite:
            out.append((f"end {e.name}", e.cite))
    for s in spec.scenarios:
        if s.cite:
            out.append((f"scenario {s.name}", s.cite))
    for u in spec.undecided:
        if u.cite:
            out.append(("undecided", u.cite))
    out.extend(spec.other_cites)
    return out


def check_citations(spec: ir.Spec, folder: str | None) -> tuple[list[Diagnostic], str | None]:
    """Diagnostics for citations that do not resolve; also the rulebook used (None if not found).

    When the rulebook is not found and no folder was given, nothing is checked (no diagnostics).
    """
    path, tried = find_rulebook(spec, folder)
    if path is None:
        if folder and spec.source:
            return [error("E307", f"rulebook '{spec.source}' not found", spec.source_span,
                          hint="looked in " + ", ".join(tried))], None
        return [], None
    book = load_rulebook(path)
    if book is None:
        return [error("E307", f"the rulebook '{path}' is not a text file, so no quote can be found in it",
                      spec.source_span, hint="cite its text: extract it (pdftotext, say) and name that file in "
                                            "`source`")], None
    diags: list[Diagnostic] = []
    seen: set[int] = set()
    for where, cite in all_cites(spec):
        if id(cite) in seen:
            continue
        seen.add(id(cite))
        if not book.contains(cite.locator):
            diags.append(error("E306", f"the locator \"{cite.locator}\" does not occur in {shown_path(path)}",
                               cite.span, hint="name a heading or a numbered paragraph as it is printed",
                               context=where))
        if cite.quote and not book.contains(cite.quote):
            diags.append(error("E306", f"the quote \"{cite.quote}\" does not occur in {shown_path(path)}",
                               cite.span, hint="quote a few words exactly as printed (case and line breaks may differ)",
                               context=where))
    return diags, path
