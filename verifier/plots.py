"""Charts for the statistics pages: numbers per player count -> SVG text (matplotlib, no screen).

The figures are reproducible: no date in the file, fixed ids, text kept as text.
"""

from __future__ import annotations

import io

_STYLE = {
    "svg.hashsalt": "rulespec",     # stable element ids, so a rebuild gives the same file
    "svg.fonttype": "none",         # text stays text: smaller, searchable, crisp
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.alpha": 0.3,
}


def _figure():
    import matplotlib

    matplotlib.rcParams.update(_STYLE)
    from matplotlib.figure import Figure  # the object API: no global pyplot state, no display

    fig = Figure(figsize=(6.4, 3.2), layout="constrained")
    return fig, fig.add_subplot()


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    # drop the XML prolog and doctype: the file is also valid inline
    return text[text.index("<svg"):]


def histogram(series: dict[str, list[float]], xlabel: str, ylabel: str = "games") -> str:
    """Side-by-side histograms, one colour per series (e.g. per player count)."""
    fig, ax = _figure()
    data = {k: v for k, v in series.items() if v}
    values = [x for v in data.values() for x in v]
    if not values:
        ax.text(0.5, 0.5, "no finished games", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return _svg(fig)
    lo, hi = min(values), max(values)
    integral = all(float(x).is_integer() for x in values)
    if integral and hi - lo <= 40:
        bins = [b - 0.5 for b in range(int(lo), int(hi) + 2)]
    else:
        bins = 20
    ax.hist(list(data.values()), bins=bins, label=list(data), rwidth=0.9)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if len(data) > 1:
        ax.legend(frameon=False)
    return _svg(fig)


def bars(categories: list[str], series: dict[str, list[float]], ylabel: str = "games") -> str:
    """Grouped bars: for each category one bar per series."""
    fig, ax = _figure()
    n = max(len(series), 1)
    width = 0.8 / n
    for i, (label, counts) in enumerate(series.items()):
        xs = [c + (i - (n - 1) / 2) * width for c in range(len(categories))]
        ax.bar(xs, counts, width=width * 0.95, label=label)
    ax.set_xticks(range(len(categories)), categories, rotation=0 if len(categories) < 6 else 30,
                  ha="center" if len(categories) < 6 else "right")
    ax.set_ylabel(ylabel)
    if len(series) > 1:
        ax.legend(frameon=False)
    return _svg(fig)
