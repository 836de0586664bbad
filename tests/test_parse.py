"""The parser: examples parse, syntax errors are all reported with positions, hostile input."""

from __future__ import annotations

import re

import pytest

from verifier import ast
from verifier.diagnostics import UserError
from verifier.parse import GRAMMAR, RESERVED, parse_file, parse_text

from conftest import EXAMPLES, MINI


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_parse(path):
    spec = parse_file(str(path))
    assert spec.decls
    assert all(d.span.line >= 1 for d in spec.decls)


def test_every_node_has_a_span():
    spec = parse_text(MINI, "mini.rules")
    for node in ast.walk(spec):
        assert node.span.file == "mini.rules"
        assert node.span.line >= 1, node


def test_doc_comments_attach_to_the_next_declaration():
    spec = parse_text(MINI, "mini.rules")
    take = next(d for d in spec.decls if isinstance(d, ast.ActionDecl) and d.name == "take")
    assert take.doc == "Take the top chip."


def test_reserved_words_match_grammar_keywords():
    keywords = set(re.findall(r'"([a-z]+)"', GRAMMAR.read_text()))
    assert keywords <= RESERVED, keywords - RESERVED


def _errors(text):
    with pytest.raises(UserError) as info:
        parse_text(text, "bad.rules")
    return info.value.diagnostics


def test_syntax_error_has_position_caret_and_hint():
    d, = _errors("game g\nplayers 2..3\nvar x: int\ninit { x = 1 }\n")
    assert d.code == "E010" and (d.span.line, d.span.col) == (4, 10)
    text = d.render()
    assert "bad.rules:4:10: error[E010]" in text and "^" in text and "hint:" in text and ":=" in text


def test_every_broken_declaration_is_reported():
    diags = _errors("game g\nvar a: int = \nvar b: int\ninit { x := }\nvar c: int ]\n")
    assert [d.span.line for d in diags] == [2, 4, 5]


def test_unexpected_character_suggests_keyword():
    d, = _errors("game g\ninvariant i cite \"x\": a && b\n")
    assert d.code == "E011" and "and" in d.hint


def test_unterminated_string():
    d, = _errors('game g "Title\n')
    assert d.code == "E012"


def test_reserved_word_as_name():
    d, = _errors("game g\nvar count: int\n")
    assert d.code == "E013" and "'count'" in d.message


def test_unexpected_end_of_file():
    d, = _errors("game g\ninit {\n")
    assert d.code == "E010" and "end of file" in d.message


@pytest.mark.parametrize("text", ["", "   \n\n", "// only a comment\n"])
def test_empty_spec(text):
    d, = _errors(text)
    assert d.code == "E004"


def test_deep_nesting_is_a_diagnostic():
    d, = _errors("game g\nconst x = " + "(" * 20000 + "1" + ")" * 20000 + "\n")
    assert d.code == "E005"


def _nested_loops(n: int) -> str:
    body = "x := 1"
    for i in range(n):
        body = f"for i{i} in 0..1 where x == 0 {{ {body} }}"
    return ('game g\nplayers 2..2 cite "S" "two"\nvar x: 0..9\ninit cite "S" "s" { x := 0 }\n'
            f'/// a.\naction a() cite "A" "a" when x == 0 {{ {body} }}\n')


def test_loops_nested_deeper_than_the_interpreter_runs_are_a_diagnostic(tmp_path):
    # 21 `for`s inside each other were "ok" in check, then exit 3 in every command that plays the
    # spec (Python's "too many statically nested blocks", 20 in a function)
    from conftest import run_cli

    d, = _errors(_nested_loops(17))
    assert d.code == "E005" and d.message == "`for` loops nested more than 16 deep", d
    path = tmp_path / "loops.rules"
    path.write_text(_nested_loops(16), encoding="utf-8")
    r = run_cli("simulate", str(path), "--games", "1")
    assert r.code == 1 and "deadlock" in r.out and "internal error" not in r.err, r  # (it plays: x := 1, then no move)


def test_syntax_errors_stop_after_twenty_five():
    # one broken declaration per line: 25 reported, then a note that it stopped (c33f603 had put
    # the stop under the branch of a too long integer, so every syntax error was reported)
    diags = _errors("game g\n" + "var x: = 1\n" * 40)
    assert len(diags) == 26 and diags[-1].message == "too many syntax errors; stopped after 25", diags[-1]


def test_long_operator_chain_is_a_diagnostic():
    d, = _errors("game g\nconst x = " + "not " * 5000 + "true\n")
    assert d.code == "E005"


def test_hypothesis_generated_specs_never_crash_the_checker():
    """Inputs generated from the grammar itself: the front end answers, it never raises."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis.extra.lark import from_lark

    from verifier.check import check
    from verifier.parse import _parser

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(from_lark(_parser(), start="start"))
    def inner(text):
        try:
            spec = parse_text(text, "gen.rules")
        except UserError:
            return
        check(spec)

    inner()


def test_a_long_flat_chain_is_told_as_a_chain_too_deep():
    # a sum of 201 terms is a chain of operators, each one level: the message says so (it read as
    # if only brackets, `if` and `for` nested)
    d, = _errors("game g \"G\"\nplayers 2..2 cite \"P\" \"p\"\nvar x: 0..5\ninit cite \"S\" \"s\" { x := "
                 + "+".join(["0"] * 201) + " }\n")
    assert d.code == "E005" and "each operator of a chain such as a + b + c counts one level" in d.message, d
