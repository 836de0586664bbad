"""benchmarks/verify_bench.py: the whole run timed as a user starts it, repeated."""

from __future__ import annotations

import pytest

from conftest import benchmark
from test_verify import SPELLS


def spells(tmp_path):
    path = tmp_path / "spells.rules"
    path.write_text(SPELLS.replace(" GUARD", "").replace(" RANK", ""))
    return str(path)


def test_a_repeated_whole_run_gives_the_spread_and_the_same_statuses(tmp_path, capsys):
    tool = benchmark("verify_bench")
    out = tmp_path / "out"
    assert tool.main([spells(tmp_path), "--whole", "--repeat", "2", "--players", "3", "--explore", "2000",
                      "--games", "5", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "(run 1 of 2)" in text and "(run 2 of 2)" in text
    assert "2 runs, least / median / largest: " in text
    assert "every run gave each of the" in text and "the same status" in text
    assert sorted(p.name for p in out.iterdir()) == ["verify_whole_1.json", "verify_whole_2.json"]


def test_runs_that_differ_are_named(tmp_path, capsys, monkeypatch):
    tool = benchmark("verify_bench")
    docs = iter([{"specs": [{"players": {"3": 1.0}, "results": [
                     {"property": "p", "players": 3, "status": status, "message": "m"}]}]}
                 for status in ("proved", "unknown")])
    monkeypatch.setattr(tool, "run_whole", lambda *a, **k: (1.0, 1.0, next(docs), ""))
    assert tool.main([spells(tmp_path), "--whole", "--repeat", "2", "--players", "3", "--out", str(tmp_path)]) == 1
    assert "statuses differ between the runs: p (3 players): proved / unknown" in capsys.readouterr().out


def test_repeat_goes_with_whole(tmp_path, capsys):
    tool = benchmark("verify_bench")
    for argv in (["--repeat", "2"], ["--whole", "--repeat", "0"]):
        with pytest.raises(SystemExit) as exc:
            tool.main([spells(tmp_path), *argv])
        assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--repeat goes with --whole" in err and "--repeat must be at least 1" in err


def test_a_rerun_takes_the_first_run_s_store_and_compares_its_statuses(tmp_path, capsys):
    from test_explore import CLIMB

    tool = benchmark("verify_bench")
    spec = tmp_path / "climb.rules"
    spec.write_text(CLIMB)
    out = tmp_path / "out"
    assert tool.main([str(spec), "--whole", "--rerun", "--players", "2", "--games", "5", "--depth", "2",
                      "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "(the first run, filling a fresh store of answers)" in text and "(re-run 1 of 1 with that store)" in text
    first, again = [line for line in text.splitlines() if line.startswith("from the store: ")]
    assert first.endswith(", 0 plays of the directed search") and again.endswith(", 3 plays of the directed search")
    assert "every run gave each of the" in text
    assert sorted(p.name for p in out.iterdir()) == ["verify_whole.json", "verify_whole_first.json"]
    with pytest.raises(SystemExit):
        tool.main([str(spec), "--rerun"])
    assert "--rerun goes with --whole" in capsys.readouterr().err
