"""docs/cli.md is kept in step with `rulespec --help`: every command, argument and help text is on the page."""

from __future__ import annotations

import argparse
import re

from verifier.cli import build_parser

from conftest import ROOT

PAGE = ROOT / "docs" / "cli.md"


def _norm(text: str) -> str:
    return " ".join(text.split())


def _commands():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return parser, sub.choices


def test_every_command_option_and_help_text_is_on_the_page():
    page = _norm(PAGE.read_text(encoding="utf-8"))
    parser, commands = _commands()
    assert _norm(parser.description) in page and _norm(parser.epilog) in page
    missing = []
    for name, sp in commands.items():
        if f"## `rulespec {name}`" not in page:
            missing.append(f"no section for `rulespec {name}`")
            continue
        section = page.split(f"## `rulespec {name}`", 1)[1].split("## `rulespec ", 1)[0]
        usage = _norm(sp.format_usage().replace("usage: ", ""))
        if usage not in section:
            missing.append(f"{name}: usage line {usage!r}")
        if _norm(sp.description) not in section:
            missing.append(f"{name}: description")
        for a in sp._actions:
            if isinstance(a, argparse._HelpAction):
                continue
            shown = ", ".join(a.option_strings) + (f" {a.metavar}" if a.metavar else "") if a.option_strings else a.metavar
            row = f"| `{shown}` | {_norm(a.help)} |"
            if row not in section:
                missing.append(f"{name}: {row}")
    assert not missing, "docs/cli.md is out of step with --help:\n" + "\n".join(missing)


def test_the_page_documents_no_command_that_does_not_exist():
    _parser, commands = _commands()
    documented = re.findall(r"^## `rulespec (\w+)`", PAGE.read_text(encoding="utf-8"), re.M)
    assert sorted(documented) == sorted(commands)
