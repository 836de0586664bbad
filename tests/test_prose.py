"""The plain-English renderer: every IR node kind has a sentence form, and none shows placeholder text."""

from __future__ import annotations

import dataclasses
import re

import pytest

from verifier import ir
from verifier.check import BUILTINS
from verifier.pipeline import load_spec
from verifier.prose import Prose, render_items

from conftest import ROOT, SHIPPED, compile_text

CORPUS = SHIPPED + [ROOT / "tests" / "specs" / "good" / "features.rules",
                    ROOT / "tests" / "specs" / "prose" / "every_kind.rules"]

# What must never appear in a sentence: a node's repr or class name, Python's None, a stand-in.
IR_NAMES = sorted({c.__name__ for c in vars(ir).values() if isinstance(c, type) and c.__module__ == ir.__name__})
PLACEHOLDER = re.compile(r"<Expr|<Stmt|\bNone\b|\?|object at 0x|\bir\.|" +
                         r"|".join(rf"\b{n}\(" for n in IR_NAMES) + r"|\b(?:" + "|".join(IR_NAMES) + r")\b")


def _subclasses(cls) -> set[type]:
    out = set()
    for c in cls.__subclasses__():
        out.add(c)
        out |= _subclasses(c)
    return out


def _walk(node, seen: list):
    """Every IR node reachable from node (expressions, domains, statements, steps, places, items)."""
    if isinstance(node, (list, tuple)):
        for x in node:
            _walk(x, seen)
        return
    if isinstance(node, dict):
        for x in node.values():
            _walk(x, seen)
        return
    if not dataclasses.is_dataclass(node) or isinstance(node, type) or type(node).__module__ != ir.__name__:
        return
    seen.append(node)
    for f in dataclasses.fields(node):
        if f.name in ("type", "span", "record", "declared"):
            continue
        _walk(getattr(node, f.name), seen)


def _spec_nodes(spec: ir.Spec) -> list:
    seen: list = []
    for part in (spec.consts, spec.params, spec.defs, spec.init, spec.actions, spec.properties, spec.ends,
                 spec.stats, spec.scenarios, spec.undecided):
        _walk(part, seen)
    return seen


def _render(prose: Prose, node) -> str:
    if isinstance(node, ir.Expr):
        return prose.expr(node)
    if isinstance(node, ir.Stmt):
        return render_items(prose.stmt(node))
    if isinstance(node, ir.Step):
        return render_items(prose.step(node))
    if isinstance(node, ir.Domain):
        return prose.domain(node)
    if isinstance(node, ir.Place):
        return prose.place(node)
    if isinstance(node, ir.Property):
        return prose.property(node)
    if isinstance(node, ir.End):
        return prose.end(node)
    if isinstance(node, ir.Stat):
        return prose.stat(node)
    if isinstance(node, ir.Action):
        return render_items(prose.guard(node)) + render_items(prose.stmts(node.body))
    return ""


@pytest.fixture(scope="module")
def rendered():
    """(node, text) for every node of every spec in the corpus."""
    out = []
    for path in CORPUS:
        spec, _w = load_spec(str(path))
        prose = Prose(spec, def_link=lambda n: f"rules.md#def-{n}")
        for node in _spec_nodes(spec):
            out.append((path.name, node, _render(prose, node)))
    return out


def test_every_node_kind_is_covered_by_the_corpus(rendered):
    kinds = {type(n) for _p, n, _t in rendered}
    wanted = _subclasses(ir.Expr) | _subclasses(ir.Stmt) | _subclasses(ir.Domain) | _subclasses(ir.Step)
    missing = sorted(c.__name__ for c in wanted - kinds)
    assert not missing, f"no spec in the corpus uses {missing}: extend tests/specs/prose/every_kind.rules"


def test_every_builtin_aggregate_operator_and_statement_form_is_covered(rendered):
    nodes = [n for _p, n, _t in rendered]
    assert {n.name for n in nodes if isinstance(n, ir.Builtin)} >= set(BUILTINS)
    assert {n.kind for n in nodes if isinstance(n, ir.Aggregate)} >= {
        "sum", "count", "all", "any", "min", "max", "argmin", "argmax"}
    assert {n.op for n in nodes if isinstance(n, ir.Binary)} >= {
        "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or", "implies"}
    assert {n.op for n in nodes if isinstance(n, ir.Unary)} == {"-", "not"}
    assert {n.what for n in nodes if isinstance(n, ir.Move)} == {"one", "count", "bag", "all"}
    assert {n.op for n in nodes if isinstance(n, ir.Assign)} == {":=", "+=", "-="}
    assert {p.kind for p in nodes if isinstance(p, ir.Property)} == {"invariant", "reachable", "terminates", "bound"}


def test_no_placeholder_text(rendered):
    bad = [(p, type(n).__name__, t) for p, n, t in rendered if not t.strip() and not isinstance(n, ir.Place)
           and isinstance(n, (ir.Expr, ir.Stmt, ir.Step, ir.Domain))]
    # the spec's own words (reasons, quotes) are rendered inside “…”: they may hold any character
    bad += [(p, type(n).__name__, t) for p, n, t in rendered if PLACEHOLDER.search(re.sub(r"“[^”]*”", "", t))]
    assert not bad, bad[:10]


def test_sentences_read_as_the_rulebook_would():
    spec = load_spec(str(ROOT / "examples" / "little_tricks" / "little_tricks.rules"))[0]
    prose = Prose(spec)
    play = spec.action("play_card")
    body = render_items(prose.stmts(play.body))
    assert "move `c` from `p`'s `hand` to `p`'s `table`" in body
    assert "- if `lead` is none:\n    - set `lead` to `c`'s `suit`" in body
    guard = [prose.expr(g) for g in play.guard]
    assert guard[:3] == ["`phase` is `playing`", "`p` is `turn`", "`c` is in `p`'s `hand`"]
    assert "there is no card `d` in `p`'s `hand` for which `d`'s `suit` is `lead`" in guard[3]
    assert prose.expr(next(c for c in spec.consts if c.name == "hand_size").value) == \
        "10 if the number of players is 3, otherwise 8"


def test_arithmetic_keeps_its_grouping():
    spec = compile_text("""
game g
players 2..2 cite "P" "two"
var a: 0..9
var b: 0..9
init cite "S" "s" { a := 9 - (b - 1)  b := (a + 1) * 2 }
""")
    p = Prose(spec)
    texts = [render_items(p.stmt(s)) for s in spec.init]
    assert texts == ["- set `a` to 9 − (`b` − 1)", "- set `b` to (`a` + 1) × 2"]


def test_names_are_code_and_strings_are_escaped():
    spec = compile_text('''
game g
players 2..2 cite "P" "two"
var a: 0..9
init cite "S" "s" { if a > 3 { undecided "<script>alert(1)</script> *x* [y](z) `t` |" cite "S" "s" } }
''')
    text = render_items(Prose(spec).stmts(spec.init))
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "\\*x\\*" in text and "\\[y\\]\\(z\\)" in text and "\\`t\\`" in text and "\\|" in text
