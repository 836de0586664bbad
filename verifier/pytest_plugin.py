"""A pytest plugin: .rules files as tests, one item per scenario and one fuzz item per player count.

    tests of spec.rules:  check                 the spec parses and checks (only when it does not)
                          scenario[NAME]        passes when the interpreter's run of the scenario passes
                          fuzz[Np]              `rulespec fuzz` with N players finds no failure

Registered through the `pytest11` entry point `rulespec`. It collects the .rules files under the
folders of the `rulespec_specs` ini option (paths relative to the ini file) and any .rules file
named on the command line; elsewhere it collects nothing. `--rulespec-examples K` sets the
examples per fuzz item (default: the `rulespec_examples` ini value, else 20); the fuzz items use
Hypothesis's default example database (`.hypothesis/` under the folder pytest runs in).
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("rulespec", "rulespec: .rules files as tests")
    group.addoption("--rulespec-examples", type=int, default=None, metavar="K",
                    help="Hypothesis examples per fuzz item of a .rules file (default: ini rulespec_examples, else 20)")
    group.addoption("--rulespec-seed", default="pytest", metavar="S", help="seed of the fuzz items (default: pytest)")
    parser.addini("rulespec_specs", type="paths", default=[],
                  help="folders whose .rules files are collected as tests (scenarios and fuzzing)")
    parser.addini("rulespec_examples", default="20", help="Hypothesis examples per fuzz item (default 20)")


def pytest_configure(config):
    config.addinivalue_line("markers", "rulespec_scenario: a scenario (ruling) of a .rules file")
    config.addinivalue_line("markers", "rulespec_fuzz: Hypothesis fuzzing of a .rules file for one player count")


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix != ".rules":
        return None
    folders = [Path(p).resolve() for p in parent.config.getini("rulespec_specs")]
    path = file_path.resolve()
    if parent.session.isinitpath(file_path) or any(path.is_relative_to(f) for f in folders):
        return RulesFile.from_parent(parent, path=file_path)
    return None


class RulesFailure(Exception):
    """A failing item, reported as its text (no Python traceback: the spec is what failed)."""


class RulesItem(pytest.Item):
    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, RulesFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)


class RulesFile(pytest.File):
    def collect(self):
        from .pipeline import load

        loaded = load(str(self.path))
        if loaded.spec is None:
            yield CheckItem.from_parent(self, name="check", diagnostics=loaded.diagnostics)
            return
        spec = loaded.spec
        for sc in spec.scenarios:
            yield ScenarioItem.from_parent(self, name=f"scenario[{sc.name}]", spec=spec, scenario=sc)
        for n in range(spec.min_players, spec.max_players + 1):
            yield FuzzItem.from_parent(self, name=f"fuzz[{n}p]", spec=spec, players=n)


class CheckItem(RulesItem):
    def __init__(self, *, diagnostics, **kw):
        super().__init__(**kw)
        self.diagnostics = diagnostics

    def runtest(self):
        raise RulesFailure("\n".join(d.render() for d in self.diagnostics))

    def reportinfo(self):
        return self.path, None, "check"


class ScenarioItem(RulesItem):
    def __init__(self, *, spec, scenario, **kw):
        super().__init__(**kw)
        self.spec = spec
        self.scenario = scenario
        self.add_marker("rulespec_scenario")

    def runtest(self):
        from .backends.interpreter import Program
        from .scenarios import run_scenario

        r = run_scenario(Program(self.spec, self.scenario.players), self.scenario)
        if not r.ok:
            where = f"{r.span}: " if r.span else ""
            moves = ("\n  moves: " + "; ".join(r.log[-8:])) if r.log else ""
            raise RulesFailure(f"{where}scenario {self.scenario.name} failed: {r.message}{moves}")

    def reportinfo(self):
        span = self.scenario.span
        return self.path, (span.line - 1) if span else None, f"scenario {self.scenario.name}"


class FuzzItem(RulesItem):
    def __init__(self, *, spec, players, **kw):
        super().__init__(**kw)
        self.spec = spec
        self.players = players
        self.add_marker("rulespec_fuzz")

    def runtest(self):
        import io

        from hypothesis import settings

        from .fuzz import fuzz, print_report

        config = self.config
        examples = config.getoption("--rulespec-examples") or int(config.getini("rulespec_examples"))
        rep = fuzz(self.spec, self.players, examples, config.getoption("--rulespec-seed"),
                   database=settings.default.database)
        if not rep.ok:
            out = io.StringIO()
            print_report(rep, out)
            raise RulesFailure(out.getvalue())

    def reportinfo(self):
        return self.path, None, f"fuzz {self.players} players"
