"""Refresh docs/cli.md from `rulespec --help`: each command's usage block and argument table.

The prose around them is kept; tests/test_cli_reference.py checks that the page is in step.
usage: python scripts/update_cli_reference.py
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier.cli import build_parser  # noqa: E402

PAGE = ROOT / "docs" / "cli.md"


def rows(sp) -> list[str]:
    out = ["| argument | meaning |", "| --- | --- |"]
    for a in sp._actions:
        if isinstance(a, argparse._HelpAction):
            continue
        shown = ", ".join(a.option_strings) + (f" {a.metavar}" if a.metavar else "") if a.option_strings else a.metavar
        out.append(f"| `{shown}` | {' '.join(a.help.split())} |")
    return out


def main():
    text = PAGE.read_text(encoding="utf-8")
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sp in sub.choices.items():
        head = re.search(r"^## `rulespec %s`.*$" % re.escape(name), text, re.M)
        if head is None:
            print(f"docs/cli.md has no section for `rulespec {name}`: write one (description and notes)")
            continue
        end = re.search(r"^## ", text[head.end():], re.M)
        stop = head.end() + end.start() if end else len(text)
        section = text[head.end():stop]
        usage = " ".join(sp.format_usage().replace("usage: ", "").split())
        section = re.sub(r"```text\n.*?\n```", lambda m: f"```text\n{usage}\n```", section, count=1, flags=re.S)
        section = re.sub(r"\| argument \| meaning \|\n\| --- \| --- \|\n(?:\|.*\|\n?)*",
                         lambda m: "\n".join(rows(sp)) + "\n", section, count=1)
        text = text[:head.end()] + section + text[stop:]
    PAGE.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
