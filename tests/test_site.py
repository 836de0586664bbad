"""The site: freshly generated pages build with `mkdocs build --strict`, and a page opened in headless
Chromium shows the rule tables and the round-structure diagram (the screenshot is kept in
build/artifacts/). Slow: generating and building take a few seconds each."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import ROOT, SHIPPED
from test_docs import HOSTILE

ARTIFACTS = ROOT / "build" / "artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A copy of mkdocs.yml, the hook and the hand-written pages, with fresh generated pages, built strict."""
    tmp = tmp_path_factory.mktemp("site")
    shutil.copy(ROOT / "mkdocs.yml", tmp)
    shutil.copy(ROOT / "mkdocs_hooks.py", tmp)
    shutil.copytree(ROOT / "docs", tmp / "docs", ignore=shutil.ignore_patterns("generated"))
    hostile = tmp / "hostile.rules"
    hostile.write_text(HOSTILE)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(ROOT))
    gen = subprocess.run([sys.executable, "-m", "verifier", "docs", *map(str, SHIPPED), str(hostile),
                          "--out", str(tmp / "docs" / "generated"), "--games", "20"],
                         capture_output=True, text=True, env=env, cwd=tmp)
    assert gen.returncode == 0, gen.stderr
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], capture_output=True, text=True,
                           env=env, cwd=tmp)
    assert build.returncode == 0, build.stdout + build.stderr
    assert "WARNING" not in build.stderr, build.stderr
    return tmp / "site"


def test_strict_build_has_every_page(site):
    for spec in ("little_tricks", "spice_route", "tug_of_wands"):
        for page in ("rules", "properties", "gaps", "statistics"):
            assert (site / "generated" / spec / "en" / page / "index.html").is_file()
    for page in ("installation", "tutorial", "language", "cli", "errors"):
        assert (site / page / "index.html").is_file()
    nav = (site / "index.html").read_text()
    assert "Rules reference" in nav and "tug_of_wands" in nav


def test_no_spec_text_becomes_markup_on_the_site(site):
    for html in site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert "<script>alert" not in text and "<img src=x" not in text and 'href="javascript' not in text, html
    rules = (site / "generated" / "hostile" / "en" / "rules" / "index.html").read_text()
    assert "&lt;script&gt;alert(4)&lt;/script&gt;" in rules


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served(site):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _chromium(tmp_path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium); CI installs it")
def test_a_generated_page_in_chromium_shows_the_rule_table_and_the_diagram(served, tmp_path):
    url = f"{served}/generated/tug_of_wands/en/rules/"
    dom = _chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    # the rule table: its header and a row per rule
    assert "<th>rule</th>" in html and "<th>who</th>" in html and "<th>rulebook</th>" in html
    for action in ("start_round", "join", "play_wand", "drop_out"):
        assert f'href="#rule-{action.replace("_", "-")}"' in html
    # the diagram, drawn at build time: one box per phase, the moves on the arrows
    assert 'class="rulespec-diagram"' in html
    for phase in ("storm", "teams", "pull", "over"):
        assert f'data-phase="{phase}"' in html
    assert '<text class="rs-move"' in html
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "rules-page.png"
    if shot.exists():
        shot.unlink()
    r = _chromium(tmp_path, "--window-size=1400,2000", "--hide-scrollbars", f"--screenshot={shot}", url)
    assert r.returncode == 0 and shot.is_file() and shot.stat().st_size > 20_000, r.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
