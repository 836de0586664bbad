"""Every shipped spec (examples/ and spec/) and the feature spec: checks, rulings pass, simulates."""

from __future__ import annotations

import pytest

from verifier.citations import check_citations
from verifier.pipeline import load
from verifier.scenarios import run_scenarios
from verifier.simulate import simulate

from conftest import ROOT, SHIPPED

SPECS = SHIPPED + [ROOT / "tests" / "specs" / "good" / "features.rules"]


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_spec_checks_clean(path):
    loaded = load(str(path))
    assert loaded.spec is not None, "\n".join(d.render() for d in loaded.diagnostics)
    assert not [d for d in loaded.diagnostics if d.is_error]


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_every_scenario_passes(path):
    spec = load(str(path)).spec
    failed = [(r.scenario.name, r.message) for r in run_scenarios(spec) if not r.ok]
    assert not failed


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_simulation_finds_no_unexpected_problem(path):
    spec = load(str(path)).spec
    for players in range(spec.min_players, spec.max_players + 1):
        rep = simulate(spec, players, 40, "examples")
        assert not rep.problems, [(f.title, f.message, f.seed) for f in rep.problems]
        assert rep.finished + sum(rep.stopped.values()) == rep.games


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_citations_resolve(path, request):
    spec = load(str(path)).spec
    beside = (path.parent / spec.source).exists()
    folder = None if beside else request.getfixturevalue("rulebooks")  # skips when absent
    diags, book = check_citations(spec, str(folder) if folder else None)
    assert book is not None, f"the rulebook {spec.source} of {path.name} was not found"
    assert not diags, "\n".join(d.render() for d in diags)
