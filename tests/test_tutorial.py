"""docs/tutorial.md tells the truth: its spec pieces are the spec that checks, and every command it shows
prints what it shows (timings aside)."""

from __future__ import annotations

import re
import shlex
import shutil

import pytest

from verifier.citations import check_citations
from verifier.pipeline import load

from conftest import ROOT, run_cli

PAGE = ROOT / "docs" / "tutorial.md"
FOLDER = ROOT / "docs" / "tutorial"
SPEC = FOLDER / "glowworms.rules"


def _blocks(lang: str) -> list[tuple[str, str]]:
    """(the HTML comment just before the block or '', the block's text) for each ```lang block."""
    text = PAGE.read_text(encoding="utf-8")
    return [(m.group(1) or "", m.group(2)) for m in
            re.finditer(r"(?:<!-- (tutorial-edit: .*?) -->\n)?```" + lang + r"\n(.*?)\n```", text, re.S)]


def test_the_final_spec_checks_with_its_citations():
    loaded = load(str(SPEC))
    assert loaded.spec is not None and not loaded.diagnostics, [d.render() for d in loaded.diagnostics]
    diags, book = check_citations(loaded.spec, None)
    assert book is not None and not diags


def test_every_piece_of_spec_on_the_page_is_the_spec_and_the_page_shows_all_of_it():
    spec = SPEC.read_text(encoding="utf-8")
    pieces = [b for _c, b in _blocks("rules")]
    assert pieces
    for piece in pieces:
        assert piece in spec, f"not in {SPEC.name}:\n{piece}"
    shown = "\n".join(pieces)
    for line in spec.splitlines():
        if line.strip() and not line.lstrip().startswith("//"):
            assert line in shown, f"the tutorial never shows: {line}"


def _mask(text: str) -> str:
    text = re.sub(r"in [\d.]+ s \([\d,]+ games/s, [\d,]+ moves/s\)", "in … s (… games/s, … moves/s)", text)
    return re.sub(r" in [\d.]+ s$", " in … s", text, flags=re.M)


CONSOLE = _blocks("console")


@pytest.mark.parametrize("edit, block", CONSOLE, ids=[b.splitlines()[0] + (" (edited)" if e else "") for e, b in CONSOLE])
def test_every_command_prints_what_the_page_shows(tmp_path, monkeypatch, edit, block):
    work = tmp_path / "tutorial"
    shutil.copytree(FOLDER, work)
    if edit:
        old, new = re.fullmatch(r'tutorial-edit: "(.*)" -> "(.*)"', edit).groups()
        text = (work / SPEC.name).read_text()
        assert old in text
        (work / SPEC.name).write_text(text.replace(old, new, 1))
    monkeypatch.chdir(work)
    lines = block.splitlines()
    assert lines[0].startswith("$ rulespec ")
    expected = "\n".join(lines[1:])
    r = run_cli(*shlex.split(lines[0][len("$ rulespec "):]))
    assert r.code == (2 if edit else 0), r
    assert _mask((r.err + r.out).rstrip()) == _mask(expected.rstrip())
