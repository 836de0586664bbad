"""Progress on a terminal, silence when piped: progress_bar(total, label) yields update(done)."""

from __future__ import annotations

import sys
from contextlib import contextmanager


@contextmanager
def progress_bar(total: int, label: str, stream=None):
    """A tqdm bar on stderr when it is a terminal; otherwise a no-op. Yields update(done_so_far)."""
    stream = stream or sys.stderr
    if not (hasattr(stream, "isatty") and stream.isatty()) or total < 2:
        yield lambda done: None
        return
    from tqdm import tqdm

    bar = tqdm(total=total, desc=label, file=stream, leave=False, unit="game", mininterval=0.2)
    state = {"done": 0}

    def update(done: int):
        bar.update(done - state["done"])
        state["done"] = done

    try:
        yield update
    finally:
        bar.close()
