"""The round structure: derived from the guards and assignments of any enum variable, drawn as SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from verifier.diagram import phase_graph, render_svg
from verifier.pipeline import load_spec

from conftest import EXAMPLES, MINI, compile_text

TRICKS = str(next(p for p in EXAMPLES if p.name == "little_tricks.rules"))


def test_little_tricks_round_structure():
    g = phase_graph(load_spec(TRICKS)[0])
    assert g.var == "phase" and g.start == "trump_choice" and g.finals == {"over": ["game_over"]}
    assert g.edges == {
        ("trump_choice", "bidding"): ["name_trump"],
        ("bidding", "bidding"): ["make_bid"],
        ("bidding", "playing"): ["make_bid"],
        ("playing", "trump_choice"): ["play_card"],
        ("playing", "playing"): ["play_card"],
        ("playing", "over"): ["play_card"],
    }
    assert g.order() == ["trump_choice", "bidding", "playing", "over"]


def test_any_variable_name_and_unconstrained_moves():
    spec = compile_text('''
game g
players 2..2 cite "P" "two"
enum Stage { dawn, dusk, night }
var stage: Stage
var n: 0..9
init cite "S" "s" { stage := dusk }
/// a
action fall() cite "A" "a" when stage == dusk and n < 3 { if n == 2 { stage := night } n += 1 }
/// b
action rise() cite "A" "b" when stage != dusk { stage := dusk }
/// c
action tick() cite "A" "c" when n < 9 { n += 1 }
end over cite "E" "e": stage == night
''')
    g = phase_graph(spec)
    assert g.var == "stage" and g.start == "dusk" and g.finals == {"night": ["over"]}
    assert g.edges[("dusk", "night")] == ["fall"] and g.edges[("dusk", "dusk")] == ["fall", "tick"]
    assert g.edges[("dawn", "dusk")] == ["rise"] and ("night", "dusk") not in g.edges  # the game is over there
    assert g.unconstrained == ["tick"] and ("night", "night") not in g.edges  # no move from an end phase
    svg = render_svg(g, "a <title> & more")
    root = ET.fromstring(svg)  # well-formed XML
    assert root.get("class") == "rulespec-diagram" and "a &lt;title&gt; &amp; more" in svg
    assert {e.get("data-phase") for e in root.iter("{http://www.w3.org/2000/svg}g")} == {"dawn", "dusk", "night"}


def test_no_phase_variable():
    assert phase_graph(compile_text(MINI)) is None
