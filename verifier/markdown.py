"""Text from a spec made safe for Markdown pages: escaping, code spans, fences, tables.

Everything a spec's author wrote (titles, citations, reasons, doc comments, names) and everything
read from a results file goes through these functions before it reaches a page, so that
`<script>` stays text and `*`, `_`, `|`, `[` or backticks do not turn into formatting.
"""

from __future__ import annotations

import re

# The characters Python-Markdown lets a backslash escape (with `|` from the tables extension).
_MD_SPECIAL = set("\\`*_{}[]()#+-.!|>")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def html(text: str) -> str:
    """Text for HTML: `&`, `<`, `>` and quotes as entities."""
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def md(text: str) -> str:
    """Plain text for a Markdown paragraph, list item or table cell: nothing in it is formatting.

    md("a *b* <i>") gives `a \\*b\\* &lt;i&gt;`, which renders as the text itself.
    """
    out = []
    for ch in " ".join(str(text).split()):  # one line: a newline could start a heading or a list
        if ch == "&":
            out.append("&amp;")
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch in _MD_SPECIAL:
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def code(name: str) -> str:
    """A name from the spec as a code span: `hand`. Anything but a plain name is escaped text."""
    name = str(name)
    if _NAME.match(name):
        return f"`{name}`"
    return md(name)


def quoted(text: str) -> str:
    """A string the spec quotes (a reason, a rulebook quote), in typographic quotes, escaped."""
    return f"“{md(text)}”"


def fence(text: str, lang: str = "") -> str:
    """A fenced code block that its content cannot close (the fence is longer than any backtick run)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table; cells must already be escaped (md(), code(), ...)."""
    def row(cells):
        return "| " + " | ".join(c.replace("\n", " ") if c else " " for c in cells) + " |"
    lines = [row(header), "| " + " | ".join("---" for _ in header) + " |"]
    lines += [row(r) for r in rows]
    return "\n".join(lines)


def anchor(text: str) -> str:
    """An id for a heading or an element: lower case letters, digits and hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "x"


# the first line of a page `rulespec diff --markdown` writes: by it diff knows a page it may
# replace, and `rulespec docs --diff` a page it may include
DIFF_PAGE_MARK = "<!-- written by rulespec diff -->"
