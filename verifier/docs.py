"""The rules reference: ir.Spec + scenario runs + simulations + property statuses -> Markdown pages.

For each game and edition, under DIR/<game>/<edition>/: index.md (components and setup),
rules.md (the round structure and every rule in words, next to its formal text and citation),
properties.md (every property with its status per player count, rulings), gaps.md, statistics.md
(with SVG plots). DIR/index.md lists the games, DIR/differences.md holds the edition difference
reports given with --diff. DIR/nav.json tells the mkdocs hook (mkdocs_hooks.py) the navigation.
The pages are build output: DIR holds a marker file listing what was written, and rulespec
refuses to write into a folder that holds anything else.
"""

from __future__ import annotations

import json
import os
import re
from contextlib import nullcontext
from dataclasses import dataclass, field

from . import __version__, ir
from .diagnostics import UserError, did_you_mean, error
from .diagram import phase_graph, render_svg
from .markdown import anchor, code, fence, md, quoted, table
from .pipeline import can_create_folder
from .prose import Item, Prose, cite_text, render_items
from .results import Result, ResultsIndex, SpecResults, error_at, simulated_results
from .source import Span, lookup
from .trace import moves_text
from .types import BagT, BoolT, Domains, EnumT, MapT, PileT, PlayerT, format_value

MARKER = ".rulespec-generated"
NAV = "nav.json"


# ---- the output folder ------------------------------------------------------------------------

def check_out(out: str) -> list[str]:
    """Whether new pages may go into `out`: the files rulespec wrote there before (its marker
    file's list; nothing when `out` is new or empty). Nothing is changed yet, so that a run that
    fails or is stopped later leaves the pages there as they were.

    Refuses (E008, exit 2) when `out` is a file, cannot be written, or holds anything that the
    marker file does not list as generated: what the user wrote is never overwritten or deleted.
    A marker that lists a path outside `out` (absolute, through `..`, or through a link) is
    damaged: rulespec deletes only inside the folder it writes.
    """
    if os.path.exists(out) and not os.path.isdir(out):
        raise UserError(error("E008", f"'{out}' exists and is not a folder", hint="--out takes a folder"))
    listed: list[str] = []
    if os.path.isdir(out) and os.listdir(out):
        marker = os.path.join(out, MARKER)
        if not os.path.isfile(marker):
            raise UserError(error("E008", f"'{out}' is not empty and was not written by rulespec docs",
                                  hint="give a new or empty folder, or one that rulespec docs wrote"))
        damaged = UserError(error("E008", f"the marker file '{marker}' is damaged, so rulespec cannot tell "
                                  "its pages from yours", hint="give a new or empty folder"))
        try:
            with open(marker, encoding="utf-8") as f:
                listed = json.load(f)["files"]
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            raise damaged from None
        if not isinstance(listed, list) or not all(isinstance(rel, str) for rel in listed):
            raise damaged
        root = os.path.realpath(out)
        for rel in listed:
            path = os.path.realpath(os.path.join(out, rel))
            if os.path.isabs(rel) or ".." in rel.replace("\\", "/").split("/") or \
                    os.path.commonpath([root, path]) != root or path == root:
                raise damaged
        # a folder is rulespec's where it holds a page rulespec wrote; any other folder (an empty
        # one among them) is the user's, and so is a link, to a folder too (os.walk does not enter it)
        ours = _folders_of(listed)
        foreign = []
        for top, dirs, files in os.walk(out):
            for name in dirs:
                rel = os.path.relpath(os.path.join(top, name), out).replace(os.sep, "/")
                if os.path.islink(os.path.join(top, name)) or rel not in ours:
                    foreign.append(rel + "/")
            for name in files:
                rel = os.path.relpath(os.path.join(top, name), out).replace(os.sep, "/")
                if rel != MARKER and rel not in listed:
                    foreign.append(rel)
        if foreign:
            raise UserError(error("E008", f"'{out}' holds what rulespec docs did not write: "
                                  + ", ".join(sorted(foreign)[:5]) + (" ..." if len(foreign) > 5 else ""),
                                  hint="move them away, or give another folder"))
    can_create_folder(out, "--out")
    return listed


def clear_out(out: str, listed: list[str]) -> None:
    """Delete the pages rulespec wrote before (check_out's list, each inside `out`), and start the
    marker file afresh."""
    for rel in listed:
        path = os.path.join(out, rel)
        if os.path.isfile(path) or os.path.islink(path):
            os.remove(path)
    ours = _folders_of(listed)  # (check_out found no other folder there; only these are removed)
    for top, _dirs, _files in os.walk(out, topdown=False):
        rel = os.path.relpath(top, out).replace(os.sep, "/")
        if top != out and rel in ours and not os.listdir(top):
            os.rmdir(top)
    try:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, MARKER), "w", encoding="utf-8") as f:
            json.dump({"generator": f"rulespec {__version__}", "files": []}, f)
    except OSError as exc:
        raise UserError(error("E008", f"cannot write to '{out}': {exc.strerror or exc}",
                              hint="choose a folder you can write to")) from None


def _folders_of(listed: list[str]) -> set[str]:
    """The folders (relative to the output folder) that hold the listed files, at any depth."""
    out: set[str] = set()
    for rel in listed:
        parts = rel.split("/")[:-1]
        for k in range(1, len(parts) + 1):
            out.add("/".join(parts[:k]))
    return out


def prepare_out(out: str) -> None:
    """Make `out` ready for new pages (check_out, then clear_out)."""
    clear_out(out, check_out(out))


class Writer:
    """Writes pages under the output folder and remembers them for the marker file."""

    def __init__(self, out: str):
        self.out = out
        self.root = os.path.realpath(out)
        self.files: list[str] = []

    def write(self, rel: str, text: str) -> None:
        path = os.path.join(self.out, rel)
        if os.path.commonpath([self.root, os.path.realpath(path)]) != self.root:  # (a link put there since check_out)
            raise UserError(error("E008", f"cannot write '{path}': it leads out of '{self.out}' through a link",
                                  hint="remove the link, or give another folder"))
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text if text.endswith("\n") else text + "\n")
        except OSError as exc:
            raise UserError(error("E008", f"cannot write '{path}': {exc.strerror or exc}")) from None
        self.files.append(rel)
        self._save_marker()

    def _save_marker(self) -> None:
        with open(os.path.join(self.out, MARKER), "w", encoding="utf-8") as f:
            json.dump({"generator": f"rulespec {__version__}", "files": sorted(self.files)}, f, indent=0)


# ---- source text ------------------------------------------------------------------------------

def source_text(span: Span | None) -> str:
    """The text a span covers (all its lines), or '' when the file's text is not known."""
    if span is None:
        return ""
    src = lookup(span.file)
    if src is None:
        return ""
    lines = src.lines[span.line - 1:span.end_line]
    if not lines:
        return ""
    if len(lines) == 1:
        return lines[0][span.col - 1:span.end_col - 1]
    lines[-1] = lines[-1][:span.end_col - 1]
    lines[0] = " " * (span.col - 1) + lines[0][span.col - 1:]
    return "\n".join(lines)


def formal(span: Span | None) -> str:
    text = source_text(span)
    return fence(text, "rules") if text else ""


def where(span: Span | None) -> str:
    """`little_tricks.rules` line 100, as text."""
    if span is None:
        return ""
    return f"{md(os.path.basename(span.file))} line {span.line}"


def shown_path(path: str) -> str:
    """A spec's path relative to the current folder when it lies inside it, else as given."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def title_heading(text: str | None, fallback: str) -> str:
    """A heading from a title the spec gives, if it is plain words; else the identifier."""
    if text and re.fullmatch(r"[^\W_][\w ,'’:]*", text) and "_" not in text:
        return text
    return code(fallback)


# ---- the verify results -----------------------------------------------------------------------

# the results `rulespec verify` gives besides the spec's properties (verifier/verify.py):
# NO_RUNTIME_ERRORS, NO_DEADLOCK, an undecided point's gap:LINE:COL (gap:ID where it has no place:
# named by where it is, which moves when the spec is edited, so taken by its form) and an action
# never enabled, enabled:ACTION
VERIFY_CHECKS = ("no_runtime_errors", "no_deadlock")
_GAP = re.compile(r"gap:(\d+:\d+|\d+)")


def _spec_of(entry: SpecResults, specs: list[ir.Spec]) -> ir.Spec | None:
    """The spec documented that a results file's entry is for, as ResultsIndex.for_spec matches
    them: by the spec's path, else by game and edition; None when it is for none of them."""
    if entry.spec:
        real = os.path.realpath(entry.spec)
        for s in specs:
            if os.path.realpath(s.path) == real:
                return s
    return next((s for s in specs if s.game == entry.game and s.edition == entry.edition), None)


def check_results(specs: list[ir.Spec], results: ResultsIndex) -> None:
    """Refuse (E009, exit 2) verify results that do not fit the specs documented, before anything
    is simulated or written: a --results file none of whose entries is for one of them (another
    game's results, which would be left out without a word), and a result of an entry for one of
    them that names a property the spec does not have or a player count outside its range (shown
    as a status, or under "Other checks", on its pages). An entry for a spec not documented in
    this run is left out: one verify run's file may serve the docs of some of its specs."""
    seen: set[str] = set()
    for entry in results.entries:
        path = entry.file
        if path in seen:
            continue
        seen.add(path)
        source = lookup(path)
        text = source.text if source is not None else ""
        entries = [e for e in results.entries if e.file == path]
        try:  # (a file given twice is in the index twice: its first copy is checked)
            entries = entries[:len(json.loads(text)["specs"])]
        except (ValueError, KeyError, TypeError, RecursionError):
            pass
        matched = [(i, e, _spec_of(e, specs)) for i, e in enumerate(entries)]
        if not any(s is not None for _i, _e, s in matched):
            theirs = [e.game + (f"/{e.edition}" if e.edition else "") + (f" ({e.spec})" if e.spec else "")
                      for e in entries]
            ours = [f"{s.label} ({s.path})" for s in specs]
            raise error_at(
                path, text, "specs[0].game",
                f"{path}: the results are for {_listed(theirs)}, not for "
                f"{'the spec' if len(specs) == 1 else 'any of the specs'} documented: {_listed(ours)}",
                "pass the results of `rulespec verify SPEC --json` of "
                + ("this spec" if len(specs) == 1 else "these specs"))
        for i, e, s in matched:
            if s is None:
                continue
            names = [p.name for p in s.properties] + list(VERIFY_CHECKS) + [f"enabled:{a.name}" for a in s.actions]
            for j, r in enumerate(e.results):
                w = f"specs[{i}].results[{j}]"
                if r.name not in names and not _GAP.fullmatch(r.name):
                    props = [p.name for p in s.properties]
                    raise error_at(
                        path, text, f"{w}.property",
                        f"{path}: {w}: {json.dumps(r.name)} is not a property of {s.label} ({s.path})",
                        did_you_mean(r.name, names) or
                        (f"its properties are {_listed(props, 6)}; " if props else "it has no properties; ")
                        + "are these the results of another version of the spec? run `rulespec verify --json` again")
                if not s.min_players <= r.players <= s.max_players:
                    count = str(s.min_players) if s.min_players == s.max_players else \
                        f"{s.min_players}–{s.max_players}"
                    raise error_at(
                        path, text, f"{w}.players",
                        f"{path}: {w}: {r.players} players, but {s.label} ({s.path}) is for {count} players",
                        "are these the results of another version of the spec? run `rulespec verify --json` again")


def _listed(items: list[str], limit: int = 3) -> str:
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


# ---- what the pages are made from -------------------------------------------------------------

@dataclass
class SpecData:
    """One spec and everything computed about it for its pages."""

    spec: ir.Spec
    folder: str                                  # relative to DIR: <game>/<edition>
    reports: list = field(default_factory=list)  # SimReport per player count
    traces: dict = field(default_factory=dict)   # (players, finding key) -> Trace
    scenarios: list = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    results_file: str | None = None              # the --results file they came from, if any
    games: int = 0
    seed: str = "0"


def compute(spec: ir.Spec, folder: str, results: ResultsIndex, games: int, seed: str, max_steps: int,
            progress=None) -> SpecData:
    """Run the scenarios and the simulations, and take the property statuses from a verify run if given.

    progress(n), when given, is a context manager for the simulation of n players that yields
    update(games_done).
    """
    from .backends.interpreter import ParamError, Program
    from .scenarios import run_scenarios
    from .simulate import record_trace, simulate

    data = SpecData(spec, folder, games=games, seed=seed)
    data.scenarios = run_scenarios(spec)
    for n in range(spec.min_players, spec.max_players + 1):
        try:
            with (progress(n) if progress else nullcontext(None)) as bar:
                rep = simulate(spec, n, games, seed, max_steps, bar)
        except ParamError as exc:
            raise UserError(error("E305", str(exc), exc.span)) from None
        data.reports.append(rep)
        program = Program(spec, n)
        for f in rep.findings.values():
            data.traces[(n, f.key)] = record_trace(program, f.seed, f.params, f.moves)
    given = results.for_spec(spec.path, spec.game, spec.edition)
    if given is not None:
        data.results = given.results
        data.results_file = given.file
    else:
        data.results = simulated_results(spec, data.reports, data.traces)
    return data


# ---- page pieces ------------------------------------------------------------------------------

def _doc(text: str | None) -> str:
    return md(text) if text else ""


def _cite_line(c: ir.Cite | None) -> str:
    return f"**Rulebook:** {cite_text(c)}" if c else "**Rulebook:** no citation"


def _trace_md(t: dict, limit: int = 40) -> str:
    """A trace (simulate's or verify's JSON form) as a numbered table of moves and what changed."""
    head = [f"{t.get('players', '?')} players", f"seed {quoted(str(t.get('seed', '')))}"]
    params = t.get("params") or {}
    if isinstance(params, dict) and params:
        head.append("parameters " + ", ".join(f"{code(k)} = {md(str(v))}" for k, v in params.items()))
    steps = t.get("steps") or []
    rows = []
    shown = steps if len(steps) <= limit else steps[:5] + [None] + steps[-(limit - 5):]
    for s in shown:
        if s is None:
            rows.append(["…", f"{moves_text(len(steps) - limit)} not shown", "", ""])
            continue
        cite = s.get("cite")
        cite_s = cite_text(ir.Cite(str(cite.get("locator", "")), cite.get("quote"))) if isinstance(cite, dict) else ""
        changes = s.get("changes") or []
        ch = "<br>".join(md(str(c)) for c in changes[:8]) + (f"<br>… and {len(changes) - 8} more" if len(changes) > 8 else "")
        rows.append([md(str(s.get("index", ""))), md(str(s.get("move", ""))), cite_s, ch])
    out = ["Trace: " + ", ".join(head) + "."]
    if rows:
        out.append(table(["#", "move", "rulebook", "what changed"], rows))
    else:
        out.append("No move: it happens in the setup.")
    outcome = t.get("outcome") or {}
    if isinstance(outcome, dict) and outcome:
        desc = ", ".join(f"{md(str(k))}: {md(str(v))}" for k, v in outcome.items() if v is not None)
        out.append(f"Outcome: {desc}.")
    return "\n\n".join(out)


def _status_cell(r: Result | None) -> str:
    if r is None:
        return "not checked"
    text = md(r.label())
    if r.status == "violated":
        text = f"**{text}**" + (" (expected)" if r.expected else "")
    return text


# ---- pages ------------------------------------------------------------------------------------

class SpecPages:
    """The pages of one spec."""

    def __init__(self, data: SpecData, diff_page: str | None):
        self.d = data
        self.spec = data.spec
        self.prose = Prose(self.spec, def_link=lambda name: f"rules.md#def-{anchor(name)}")
        self.diff_page = diff_page
        self.counts = list(range(self.spec.min_players, self.spec.max_players + 1))

    # -- helpers
    def heading(self) -> str:
        s = self.spec
        ed = f" ({code(s.edition)})" if s.edition else ""
        return title_heading(s.title, s.game) + ed

    def intro(self) -> str:
        s = self.spec
        parts = [f"{md(s.title) if s.title else code(s.game)}"]
        if s.edition:
            parts.append(f"edition {code(s.edition)}" + (f": {md(s.edition_title)}" if s.edition_title else ""))
        players = f"{s.min_players} to {s.max_players}" if s.max_players > s.min_players else f"{s.min_players}"
        text = ", ".join(parts) + f", for {players} players."
        if s.source:
            text += f" Formalised from the rulebook {md(s.source)}."
        return text + f" Spec file: {md(shown_path(s.path))}."

    # -- index: components and setup
    def index_page(self) -> str:
        s = self.spec
        dom = Domains(s.max_players)
        out = [f"# {self.heading()}", self.intro(),
               "Pages: [rules](rules.md) · [properties](properties.md) · [rulebook gaps](gaps.md) · "
               "[statistics](statistics.md)" + (f" · [edition differences]({self.diff_page})" if self.diff_page else ""),
               "## Players", f"{s.min_players} to {s.max_players} players. {_cite_line(s.players_cite)}"
               if s.max_players > s.min_players else f"{s.min_players} players. {_cite_line(s.players_cite)}"]
        out.append("## Components")
        if s.enums:
            out.append("### Kinds of things")
            rows = []
            for name, t in s.enums.items():
                base = f" (all of {code(t.base.name)}, then its own)" if t.base else ""
                rows.append([code(name), ", ".join(code(v) for v in t.values) + base, str(len(t.values))])
            out.append(table(["name", "values", "how many"], rows))
        if s.records:
            out.append("### Cards and records")
            rows = []
            for name, t in s.records.items():
                fields = ", ".join(f"{code(f)}: {self.prose.type_name(ft)}" for f, ft in t.fields)
                try:
                    kinds = str(dom.size(t)) if not any(isinstance(ft, PlayerT) for _f, ft in t.fields) else "by player count"
                except TypeError:
                    kinds = ""
                rows.append([code(name), "card" if t.card else "record", fields, kinds])
            out.append(table(["name", "is a", "fields", "kinds"], rows))
        if s.consts:
            out.append("### Constants")
            out.append("Evaluated for each player count before the setup" +
                       ("; a constant that depends on a parameter is shown for one drawn value." if s.params else "."))
            values = self._const_values()
            header = ["name", "in words"] + [f"{n} players" for n in self.counts]
            rows = []
            for i, c in enumerate(s.consts):
                rows.append([code(c.name), self.prose.expr(c.value)] + [values.get((i, n), "") for n in self.counts])
            out.append(table(header, rows))
            docs = [c for c in s.consts if c.doc]
            if docs:
                out.append("\n".join(f"- {code(c.name)}: {md(c.doc)}" for c in docs))
        if s.params:
            out.append("### Parameters")
            out.append("Values the rulebook does not fix. A proof must hold for every value; each simulated game "
                       "draws one at random.")
            rows = []
            for p in s.params:
                cond = self.prose.expr(p.where) if p.where is not None else ""
                rows.append([code(p.name), self.prose.type_name(p.type), cond, _doc(p.doc),
                             cite_text(p.cite) if p.cite else ""])
            out.append(table(["name", "a value among", "condition", "meaning", "rulebook"], rows))
        variables = [v for v in s.state if not v.zone]
        zones = [v for v in s.state if v.zone]
        if zones:
            out.append("### Zones")
            out.append("Where the cards are. A pile is a stack with a top; a bag has no order. "
                       "*Visible* says who sees the contents at the table.")
            rows = []
            for z in zones:
                t = z.type
                per = ""
                if isinstance(t, MapT):
                    per = f"one per {self.prose.type_name(t.key)}"
                    t = t.value
                kind = "pile" if isinstance(t, PileT) else "bag"
                extra = []
                if z.refill:
                    extra.append(f"refilled from {code(z.refill)}" + (", shuffled" if z.refill_shuffled else ""))
                if z.exhausted == "skip":
                    extra.append("an empty draw takes what there is")
                elif z.exhausted == "undecided":
                    extra.append("an empty draw is a [rulebook gap](gaps.md)")
                rows.append([code(z.name), f"{kind} of {self.prose.type_name(t.elem, True)}", per,
                             md(z.visibility), "; ".join(extra), _doc(z.doc)])
            out.append(table(["zone", "holds", "how many", "visible", "when drawing", "meaning"], rows))
        if variables:
            out.append("### State")
            rows = [[code(v.name), self.prose.type_name(v.type), md(v.visibility), _doc(v.doc)] for v in variables]
            out.append(table(["variable", "a value among", "visible", "meaning"], rows))
        out.append("## Setup")
        out.append(_cite_line(s.init_cite))
        out.append(render_items(self.prose.stmts(s.init)) or "Nothing to set up.")
        f = formal(s.init_span)
        if f:
            out.append(f)
        return "\n\n".join(out)

    def _const_values(self) -> dict:
        from .backends.interpreter import Program

        values = {}
        for n in self.counts:
            try:
                program = Program(self.spec, n)
                game = program.start("docs")
            except Exception:  # a setup that faults is reported on the gaps and properties pages
                continue
            base = len(self.spec.params)
            for i, c in enumerate(self.spec.consts):
                v = game.P[base + i]
                t = c.type
                if isinstance(t, BagT):
                    text = f"{sum(v)} cards"
                else:
                    try:
                        text = format_value(t, v, program.domains)
                    except Exception:  # a value the formatter does not know: leave the cell empty
                        text = ""
                    if len(text) > 60:
                        text = text[:57] + "…"
                values[(i, n)] = md(text)
        return values

    # -- rules: round structure, actions, ends, definitions
    def phase_of(self, a: ir.Action, graph) -> str:
        if graph is None:
            return ""
        if a.name in graph.unconstrained:
            return "any"
        froms = sorted({f for (f, _t), names in graph.edges.items() if a.name in names}, key=graph.values.index)
        return ", ".join(code(v) for v in froms)

    def rules_page(self) -> str:
        s = self.spec
        out = [f"# Rules of {self.heading()}", self.intro()]
        graph = phase_graph(s)
        out.append("## Round structure")
        if graph is None:
            out.append("No phase variable: no enumeration-typed variable is tested by the actions' conditions, "
                       "so every rule may apply whenever its conditions hold.")
        else:
            out.append(f"The phases are the values of {code(graph.var)}. An arrow is a move that changes the "
                       "phase (a dashed one goes back), a loop a move that can leave it as it is; a double border "
                       "marks a phase in which the game ends. Derived from the rules' conditions "
                       f"({code(graph.var)} `==` a value) and what they set.")
            out.append(f'<div class="rulespec-diagram-box" markdown="0">{render_svg(graph, f"round structure of {s.game}")}</div>')
            rows = []
            for (a, b), names in sorted(graph.edges.items(), key=lambda kv: (graph.order().index(kv[0][0]),
                                                                              graph.order().index(kv[0][1]))):
                rows.append([code(a), code(b), ", ".join(f"[{code(n)}](#rule-{anchor(n)})" for n in names)])
            out.append(table(["from", "to", "by the moves"], rows))
            if graph.unconstrained:
                out.append("Moves whose conditions do not name a phase (shown from every phase where the game "
                           "goes on): " + ", ".join(code(n) for n in graph.unconstrained) + ".")
        out.append("## The rules at a glance")
        rows = []
        for a in s.actions:
            who = self.prose.expr(a.by) if a.by is not None else "automatic"
            rows.append([f"[{code(a.name)}](#rule-{anchor(a.name)})", who, self.phase_of(a, graph),
                         _doc(a.doc), cite_text(a.cite) if a.cite else ""])
        out.append(table(["rule", "who", "phase", "what it does", "rulebook"], rows))
        out.append("## Every rule")
        for a in s.actions:
            out.append(self.action_section(a))
        out.append("## The end")
        for e in s.ends:
            out.append(f"### {code(e.name)} {{#end-{anchor(e.name)}}}")
            if e.doc:
                out.append(md(e.doc))
            out.append(self.prose.end(e))
            out.append(_cite_line(e.cite))
            out.append(formal(e.span))
        if not s.ends:
            out.append("The spec declares no end.")
        if s.defs:
            out.append("## Definitions")
            out.append("Names the rules use for values they compute.")
            for d in s.defs.values():
                args = ", ".join(f"{code(n)} ({self.prose.type_name(t)})" for n, t in d.params)
                out.append(f"### {code(d.name)} {{#def-{anchor(d.name)}}}")
                if d.doc:
                    out.append(md(d.doc))
                out.append((f"Given {args}: " if args else "") + self.prose.expr(d.body) + ".")
                out.append(formal(d.span))
        return "\n\n".join(x for x in out if x)

    def action_section(self, a: ir.Action) -> str:
        p = self.prose
        out = [f"### {code(a.name)} {{#rule-{anchor(a.name)}}}"]
        if a.doc:
            out.append(f"*{md(a.doc)}*")
        out.append(_cite_line(a.cite))
        who = f"chosen by {p.expr(a.by)}" if a.by is not None else "an automatic step of the rules (no player chooses it)"
        params = ", ".join(f"{p.type_name(t)} {code(n)}" for n, t in a.params)
        out.append(f"**Who:** {who}." + (f" **Choices:** {params}." if params else ""))
        if a.guard:
            out.append("**Allowed when** all of these hold:")
            out.append(render_items(p.guard(a)))
        else:
            out.append("**Allowed** at any time.")
        out.append("**Then:**")
        out.append(render_items(p.stmts(a.body)) or "- nothing happens")
        out.append("Formal text:")
        out.append(formal(a.span))
        return "\n\n".join(out)

    # -- properties and rulings
    def properties_page(self) -> str:
        s, d = self.spec, self.d
        out = [f"# Properties of {self.heading()}", self.intro()]
        if d.results_file:
            out.append(f"Statuses from the verify run in {md(d.results_file)}: `proved` holds for every play "
                       "(by induction or a ranking function), `bounded (k = …)` has no violation in k steps, "
                       "`tested` has no violation in the generated plays, `violated` comes with a trace, "
                       "`unknown` means the solver gave up.")
        else:
            out.append(f"No verify results were given (`rulespec docs --results FILE`), so these statuses come from "
                       f"{d.games} random games per player count (seed {quoted(d.seed)}), every property checked "
                       "after every move: `tested (N games, no violation)` is evidence, not a proof; `violated` "
                       "comes with the shortest trace found; a goal is `reachable` when a game reached it and "
                       "`unknown` when none did. Nothing here is proved.")
        by = {(r.name, r.players): r for r in d.results}
        counts = self.counts
        rows = []
        for prop in s.properties:
            cells = [_status_cell(by.get((prop.name, n))) for n in counts]
            rows.append([f"[{code(prop.name)}](#property-{anchor(prop.name)})", md(prop.kind) + (" (lemma)" if prop.lemma else ""),
                         _doc(prop.doc)] + cells)
        if rows:
            out.append(table(["property", "kind", "what it says"] + [f"{n} players" for n in counts], rows))
        else:
            out.append("The spec states no properties.")
        for prop in s.properties:
            out.append(f"## {code(prop.name)} {{#property-{anchor(prop.name)}}}")
            if prop.doc:
                out.append(f"*{md(prop.doc)}*")
            out.append(f"**{md(prop.kind.capitalize())}.** {self.prose.property(prop)}")
            out.append(_cite_line(prop.cite))
            if prop.expect_violated:
                out.append(f"**Known to fail**, as the spec says: {quoted(prop.expect_violated)}")
            out.append(formal(prop.span))
            status_rows = []
            for n in counts:
                r = by.get((prop.name, n))
                extra = ""
                if r is not None:
                    bits = []
                    if r.seconds is not None:
                        bits.append(f"{r.seconds:g} s")
                    if r.message:
                        bits.append(md(r.message))
                    if r.expected:
                        bits.append(f"expected: {quoted(r.expected)}")
                    extra = "; ".join(bits)
                status_rows.append([str(n), _status_cell(r), extra])
            out.append(table(["players", "status", "notes"], status_rows))
            for n in counts:
                r = by.get((prop.name, n))
                if r is not None and r.status == "violated" and r.trace:
                    out.append(f"**Violated with {n} players.** " + _trace_md(r.trace))
        others = [r for r in d.results if r.kind in ("undecided", "deadlock", "action")
                  or not any(p.name == r.name for p in s.properties)]
        if others:
            out.append("## Other checks of the verify run")
            out.append(table(["check", "kind", "players", "status", "notes"],
                             [[code(r.name), md(r.kind), str(r.players), _status_cell(r), md(r.message)] for r in others]))
        problems = [(rep.players, f) for rep in d.reports for f in rep.findings.values()
                    if f.kind in ("fault", "deadlock", "step_limit")]
        out.append("## Other findings of the simulation")
        if problems:
            for n, f in problems:
                t = d.traces.get((n, f.key))
                out.append(f"**{md(f.kind)}, {n} players:** {md(f.title)}, in {f.count} of {d.games} games. "
                           + (_trace_md(t.to_json()) if t is not None else ""))
        else:
            out.append(f"None: in {d.games} games per player count no game deadlocked, faulted or ran past the "
                       "move limit.")
        out.append("## Rulings")
        if s.scenarios:
            out.append("Situations settled by the spec's scenarios, each run through the interpreter.")
            rows = [[f"[{code(r.scenario.name)}](#scenario-{anchor(r.scenario.name)})", str(r.scenario.players),
                     "passes" if r.ok else f"**fails**: {md(r.message)}", cite_text(r.scenario.cite)]
                    for r in d.scenarios]
            out.append(table(["scenario", "players", "result", "rulebook"], rows))
            for r in d.scenarios:
                sc = r.scenario
                out.append(f"### {code(sc.name)} {{#scenario-{anchor(sc.name)}}}")
                if sc.doc:
                    out.append(f"*{md(sc.doc)}*")
                items = [Item(f"{sc.players} players, seed {sc.seed}")]
                for step in sc.steps:
                    items.extend(self.prose.step(step))
                out.append(render_items(items))
                out.append(formal(sc.span))
        else:
            out.append("The spec has no scenarios.")
        return "\n\n".join(x for x in out if x)

    # -- gaps
    def gaps_page(self) -> str:
        s, d = self.spec, self.d
        out = [f"# Rulebook gaps in {self.heading()}", self.intro(),
               "Situations the rulebook does not settle. The spec marks each with `undecided` instead of "
               "inventing a rule; reaching one is a finding, not a crash."]
        groups: dict[tuple, list[ir.Undecided]] = {}
        for u in s.undecided:
            key = (u.span.line, u.span.col) if u.span else ("id", u.id)
            groups.setdefault(key, []).append(u)
        if not groups:
            out.append("The spec marks no gaps.")
        owners = self._gap_owners()
        for key, us in groups.items():
            u = us[0]
            title = f"line {u.span.line}" if u.span else f"gap {u.id}"
            out.append(f"## {md(title)} {{#gap-{anchor(title)}}}")
            out.append(f"**Undecided:** {quoted(u.reason)}")
            out.append(_cite_line(u.cite))
            places = sorted({o for x in us for o in owners.get(x.id, [])})
            if places:
                out.append("Reached from: " + ", ".join(places) + ".")
            rows = []
            for rep in d.reports:
                f = rep.findings.get(f"gap:{u.span.line}:{u.span.col}" if u.span else f"gap:{u.id}")
                rows.append([str(rep.players), f"in {f.count} of {rep.games} games" if f else
                             f"not reached in {rep.games} games"])
            if rows:
                out.append(table(["players", "simulation"], rows))
            for rep in d.reports:
                f = rep.findings.get(f"gap:{u.span.line}:{u.span.col}" if u.span else f"gap:{u.id}")
                if f is not None:
                    t = d.traces.get((rep.players, f.key))
                    if t is not None:
                        out.append(f"**Shortest game reaching it with {rep.players} players** "
                                   f"({moves_text(len(f.moves))}). " + _trace_md(t.to_json(), limit=25))
                    break
            out.append(formal(u.span))
        verify = [r for r in d.results if r.kind == "undecided"]
        if verify:
            out.append("## Gap checks of the verify run")
            out.append(table(["check", "players", "status", "notes"],
                             [[code(r.name), str(r.players), _status_cell(r), md(r.message)] for r in verify]))
        return "\n\n".join(x for x in out if x)

    def _gap_owners(self) -> dict[int, list[str]]:
        owners: dict[int, list[str]] = {}

        def walk(stmts, owner):
            for st in stmts:
                if isinstance(st, ir.Undecided):
                    owners.setdefault(st.id, []).append(owner)
                elif isinstance(st, ir.If):
                    walk(st.then, owner)
                    walk(st.other, owner)
                elif isinstance(st, ir.For):
                    walk(st.body, owner)

        walk(self.spec.init, "the setup")
        for a in self.spec.actions:
            walk(a.body, f"[{code(a.name)}](rules.md#rule-{anchor(a.name)})")
        for v in self.spec.state:
            if v.exhausted_gap is not None:
                owners.setdefault(v.exhausted_gap.id, []).append(f"a draw from an empty {code(v.name)}")
        return owners

    # -- statistics
    def statistics_page(self, writer: Writer) -> str:
        from . import plots

        s, d = self.spec, self.d
        out = [f"# Statistics of {self.heading()}", self.intro(),
               f"From {d.games} random games per player count (seed {quoted(d.seed)}): each move chosen uniformly "
               "among the legal moves. Random play is not good play; these figures describe the rules, not "
               "strategy. Game *g* uses the seed \"S/g\" and can be replayed with `rulespec simulate`."]
        rows = []
        for rep in d.reports:
            ms = rep.move_summary()
            ends = ", ".join(f"{code(k)} {v}" for k, v in sorted(rep.ends.items())) or "none"
            stopped = ", ".join(f"{md(k)} {v}" for k, v in sorted(rep.stopped.items())) or "none"
            rows.append([str(rep.players), f"{rep.finished} of {rep.games}", f"{ms['min']} / {ms['median']:g} / {ms['max']}",
                         ends, stopped])
        out.append(table(["players", "finished", "moves per game (min / median / max)", "ended by",
                          "stopped by a finding"], rows))
        label = {rep.players: f"{rep.players} players" for rep in d.reports}
        plot_dir = f"{d.folder}/plots"

        def figure(name: str, svg: str, alt: str) -> str:
            writer.write(f"{plot_dir}/{name}.svg", svg)
            return f"![{md(alt)}](plots/{name}.svg)"

        out.append("## Moves per game")
        out.append(figure("moves", plots.histogram({label[r.players]: r.moves for r in d.reports}, "moves per game"),
                          "moves per game"))
        out.append("## How games end")
        out.append("Each `end` the spec declares, and the games stopped by a finding (a rulebook gap, a fault).")
        cats = [e.name for e in s.ends]
        stop_kinds = sorted({k for r in d.reports for k in r.stopped})
        categories = cats + [f"stopped: {k}" for k in stop_kinds]
        if categories:
            series = {label[r.players]: [r.ends.get(c, 0) for c in cats] + [r.stopped.get(k, 0) for k in stop_kinds]
                      for r in d.reports}
            out.append(figure("ends", plots.bars(categories, series), "how games end"))
        reach = [p for p in s.properties if p.kind == "reachable"]
        if reach:
            out.append("## Goals reached")
            out.append(table(["goal"] + [label[r.players] for r in d.reports],
                             [[code(p.name)] + [f"{r.reached.get(p.name, 0)} of {r.games}" for r in d.reports]
                              for p in reach]))
        for i, st in enumerate(s.stats):
            out.append(f"## {code(st.name)}")
            if st.doc:
                out.append(md(st.doc))
            out.append(f"At the end of each finished game: {self.prose.stat(st)}.")
            out.append(formal(st.span))
            t = st.expr.type
            per_count = {r.players: r.stats.get(st.name, []) for r in d.reports}
            if isinstance(t, (BoolT, EnumT, PlayerT)):
                out.extend(self._categorical_stat(figure, i, st, per_count, label))
            else:
                out.extend(self._numeric_stat(figure, i, st, per_count, label))
        return "\n\n".join(x for x in out if x)

    def _numeric_stat(self, figure, i, st, per_count, label) -> list[str]:
        from . import plots

        out = []
        flat = {n: [x for v in vals for x in (v if isinstance(v, list) else [v]) if isinstance(x, (int, float))]
                for n, vals in per_count.items()}
        rows = []
        for n, xs in flat.items():
            if xs:
                rows.append([str(n), str(len(xs)), f"{min(xs):g}", f"{sum(xs) / len(xs):.2f}", f"{max(xs):g}"])
            else:
                rows.append([str(n), "0", "", "", ""])
        out.append(table(["players", "values", "min", "mean", "max"], rows))
        if st.params:
            (pname, pt), = st.params[:1]
            if isinstance(pt, PlayerT):
                mrows = []
                for n, vals in per_count.items():
                    if vals:
                        means = [sum(v[k] for v in vals) / len(vals) for k in range(n)]
                        mrows.append([str(n)] + [f"{m:.2f}" for m in means] + [""] * (self.spec.max_players - n))
                if mrows:
                    out.append(f"Mean by seat ({code(pname)} = seat 0, 1, …; seat 0 is the first seat in the spec's order):")
                    out.append(table(["players"] + [f"seat {k}" for k in range(self.spec.max_players)], mrows))
        out.append(figure(f"stat-{i}", plots.histogram({label[n]: xs for n, xs in flat.items()}, st.name), st.name))
        return out

    def _categorical_stat(self, figure, i, st, per_count, label) -> list[str]:
        from . import plots

        t = st.expr.type
        flat = {n: [x for v in vals for x in (v if isinstance(v, list) else [v])] for n, vals in per_count.items()}
        if isinstance(t, BoolT):
            cats, key = ["false", "true"], lambda x: "true" if x else "false"
        elif isinstance(t, EnumT):
            cats, key = list(t.values), lambda x: t.values[x] if isinstance(x, int) and 0 <= x < len(t.values) else str(x)
        else:
            cats, key = [f"seat {k}" for k in range(self.spec.max_players)], lambda x: f"seat {x}"
        series = {label[n]: [sum(1 for x in xs if key(x) == c) for c in cats] for n, xs in flat.items()}
        rows = [[md(c)] + [str(series[label[n]][j]) for n in flat] for j, c in enumerate(cats)]
        return [table(["value"] + [label[n] for n in flat], rows), figure(f"stat-{i}", plots.bars(cats, series), st.name)]


# ---- the whole reference ----------------------------------------------------------------------

def _folder_for(spec: ir.Spec, taken: set[str]) -> str:
    base = f"{spec.game}/{spec.edition or 'spec'}"
    folder, k = base, 2
    while folder in taken:
        folder = f"{base}-{os.path.splitext(os.path.basename(spec.path))[0]}" if k == 2 else f"{base}-{k}"
        k += 1
    taken.add(folder)
    return folder


def read_diffs(paths: list[str]) -> list[tuple[str, str]]:
    """The --diff files: (file name, Markdown text); a file that cannot be read is E001, one that
    is not a page `rulespec diff --markdown` wrote (by its first line) E009."""
    from .markdown import DIFF_PAGE_MARK
    from .parse import read_text

    hint = "--diff takes a Markdown file written by `rulespec diff --markdown`"
    out = []
    for path in paths:
        source = read_text(path, "a difference report", 50_000_000, hint)
        first = source.text.lstrip("\ufeff").split("\n", 1)[0]
        if first.strip() != DIFF_PAGE_MARK:
            raise UserError(error("E009", f"'{path}' is not a difference report: its first line is not "
                                  f"`{DIFF_PAGE_MARK}`", Span(path, 1, 1, 1, max(2, len(first) + 1)), hint=hint))
        out.append((os.path.basename(path), source.text))
    return out


def write_reference(out: str, specs: list[ir.Spec], results: ResultsIndex, diffs: list[tuple[str, str]],
                    games: int, seed: str, max_steps: int = 100_000, progress=None) -> list[str]:
    """Write every page; returns the files written, relative to `out`. The simulations run first:
    the pages there from before are replaced only once the new ones are ready to be written."""
    listed = check_out(out)
    check_results(specs, results)
    taken: set[str] = set()
    datas = []
    for spec in specs:
        folder = _folder_for(spec, taken)
        datas.append(compute(spec, folder, results, games, seed, max_steps,
                             (lambda n, s=spec: progress(s, n)) if progress else None))
    listed = check_out(out)  # (again: the folder may have changed during the simulations)
    clear_out(out, listed)
    writer = Writer(out)
    nav: list = []
    by_game: dict[str, list[SpecData]] = {}
    for d in datas:
        by_game.setdefault(d.spec.game, []).append(d)
    for game, ds in by_game.items():
        game_nav: list = [{"Overview": f"{game}/index.md"}]
        for d in ds:
            pages = SpecPages(d, "../../differences.md")
            f = d.folder
            writer.write(f"{f}/index.md", pages.index_page())
            writer.write(f"{f}/rules.md", pages.rules_page())
            writer.write(f"{f}/properties.md", pages.properties_page())
            writer.write(f"{f}/gaps.md", pages.gaps_page())
            writer.write(f"{f}/statistics.md", pages.statistics_page(writer))
            label = f"Edition {d.spec.edition}" if d.spec.edition else "Spec"
            if label in [next(iter(x)) for x in game_nav]:
                label = f"{label} ({f.split('/')[-1]})"
            game_nav.append({label: [{"Components and setup": f"{f}/index.md"}, {"Rules": f"{f}/rules.md"},
                                     {"Properties": f"{f}/properties.md"}, {"Rulebook gaps": f"{f}/gaps.md"},
                                     {"Statistics": f"{f}/statistics.md"}]})
        writer.write(f"{game}/index.md", _game_page(game, ds))
        nav.append({game: game_nav})
    writer.write("differences.md", _differences_page(diffs))
    writer.write("index.md", _overview_page(datas, results, games, seed, bool(diffs)))
    writer.write(NAV, json.dumps([{"Overview": "index.md"}] + nav + [{"Edition differences": "differences.md"}],
                                 indent=1))
    return list(writer.files)


def _summary(d: SpecData) -> str:
    counts: dict[str, int] = {}
    for r in d.results:
        if any(p.name == r.name for p in d.spec.properties):
            key = "violated as expected" if r.status == "violated" and r.expected else r.status
            counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{v} {md(k)}" for k, v in sorted(counts.items())) or "none"


def _game_page(game: str, ds: list[SpecData]) -> str:
    first = ds[0].spec
    out = [f"# {title_heading(first.title, game)}",
           f"{md(first.title) if first.title else code(game)}: {len(ds)} edition{'s' * (len(ds) != 1)} formalised."]
    rows = []
    for d in ds:
        s = d.spec
        rel = d.folder.split("/", 1)[1]
        rows.append([f"[{code(s.edition) if s.edition else 'the spec'}]({rel}/index.md)", md(s.edition_title or ""),
                     f"{s.min_players}–{s.max_players}", str(len(s.actions)),
                     f"[{len(s.properties)}]({rel}/properties.md)", f"[{len({(u.span.line, u.span.col) if u.span else u.id for u in s.undecided})}]({rel}/gaps.md)",
                     md(shown_path(s.path))])
    out.append(table(["edition", "title", "players", "rules", "properties", "gaps", "spec file"], rows))
    out.append("How the editions differ: see [edition differences](../differences.md).")
    return "\n\n".join(out)


def _overview_page(datas: list[SpecData], results: ResultsIndex, games: int, seed: str, diffs: bool) -> str:
    out = ["# Rules reference",
           "Generated by `rulespec docs` from the specs: every rule in plain words next to its formal text and "
           "the rulebook paragraph it formalises, what is known about each property, the situations the rulebooks "
           "leave open, and statistics of simulated games. These pages are build output: edit the specs, not them."]
    rows = []
    for d in datas:
        s = d.spec
        gaps = len({(u.span.line, u.span.col) if u.span else u.id for u in s.undecided})
        rows.append([f"[{md(s.title) if s.title else code(s.game)}]({d.folder}/index.md)",
                     code(s.edition) if s.edition else "", f"{s.min_players}–{s.max_players}",
                     f"[{len(s.actions)}]({d.folder}/rules.md)", _summary(d), f"[{gaps}]({d.folder}/gaps.md)",
                     "verify run" if d.results_file else f"{games} simulated games per player count"])
    out.append(table(["game", "edition", "players", "rules", "property results (all player counts)", "gaps",
                      "statuses from"], rows))
    out.append(f"Simulations: {games} games per player count, seed {quoted(seed)}. "
               + ("Property statuses come from the verify results given where a spec has them, and from the "
                  "simulations elsewhere." if results.entries else
                  "No verify results were given, so no property is shown as proved."))
    out.append("[Edition differences](differences.md): " + ("the reports given." if diffs else
                                                            "no difference report given."))
    return "\n\n".join(out)


def _differences_page(diffs: list[tuple[str, str]]) -> str:
    out = ["# Edition differences"]
    if not diffs:
        out.append("**No difference report given.** Pass a difference report in Markdown with "
                   "`rulespec docs --diff FILE` to include it here.")
        return "\n\n".join(out)
    out.append("The difference reports given to `rulespec docs --diff`, included as written.")
    for name, text in diffs:
        out.append(f"## {md(name)}")
        # the report's own headings go one level down, below the file's heading
        out.append(re.sub(r"(?m)^(#{1,5}) ", lambda m: "##" + m.group(1) + " ", text.strip()) + "\n")
    return "\n\n".join(out)


def default_specs(cwd: str | None = None) -> list[str]:
    """Every shipped spec: the .rules files under examples/ and spec/ of the project."""
    from .parse import find_rules_files

    roots = [cwd or os.getcwd(), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    for root in roots:
        folders = [os.path.join(root, d) for d in ("examples", "spec") if os.path.isdir(os.path.join(root, d))]
        found = [f for d in folders for f in find_rules_files(d)]
        if found:
            return [os.path.relpath(f) if root == roots[0] else f for f in found]
    raise UserError(error("E006", "no spec given, and no examples/ or spec/ folder with .rules files here",
                          hint="pass .rules files or folders"))


__all__ = ["write_reference", "check_results", "read_diffs", "default_specs", "prepare_out", "check_out", "clear_out", "source_text", "SpecPages", "compute",
           "MARKER"]
