"""benchmarks/search_rates.py: a search of a goal's own, once per seed, each witness replayed."""

from __future__ import annotations

import json

from conftest import benchmark
from test_explore import DEAL


def test_rates_by_seed_with_and_without_restarts(tmp_path, capsys):
    path = tmp_path / "deal.rules"
    path.write_text(DEAL)
    tool = benchmark("search_rates")
    # s0 deals no start game of its first run the tile at the bottom (tests/test_explore.py)
    assert tool.main([str(path), "--players", "2", "--goal", "summit", "--seeds", "s0,s2", "--budget", "8000"]) == 0
    out = capsys.readouterr().out
    assert "reached with 2 of 2 seeds" in out and "s0: reached after" in out
    assert tool.main([str(path), "--players", "2", "--goal", "summit", "--seeds", "s0,s2", "--budget", "8000",
                      "--one-run", "--json"]) == 0
    records = {r["seed"]: r for r in json.loads(capsys.readouterr().out)}
    assert not records["s0"]["reached"] and records["s0"]["moves"] == 8000
    assert records["s2"]["reached"] and records["s2"]["replayed"] and records["s2"]["witness"] > 0


def test_a_wrong_goal_or_point_is_a_clear_error(tmp_path, capsys):
    path = tmp_path / "deal.rules"
    path.write_text(DEAL)
    tool = benchmark("search_rates")
    assert tool.main([str(path), "--players", "2", "--goal", "sumit"]) == 2
    assert "no reachable property 'sumit'" in capsys.readouterr().err
    assert tool.main([str(path), "--players", "2", "--goal", "summit", "--riders", "gap:1:1"]) == 2
    assert "no undecided point gap:1:1" in capsys.readouterr().err
    assert tool.main([str(tmp_path / "nope.rules"), "--players", "2", "--goal", "summit"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_start_games_out_of_reach_are_left_as_in_verify(tmp_path, capsys):
    path = tmp_path / "deal.rules"
    path.write_text(DEAL + 'invariant capped cite "R" "up": level <= cap\n')
    tool = benchmark("search_rates")
    run = [str(path), "--players", "2", "--goal", "summit", "--seeds", "s0", "--budget", "8000", "--one-run", "--json"]
    # proved here: the first run from s0 leaves its start games (all capped below the top)
    assert tool.main(run) == 0
    assert json.loads(capsys.readouterr().out)[0]["reached"]
    assert tool.main(run + ["--no-prune"]) == 0
    assert not json.loads(capsys.readouterr().out)[0]["reached"]
    # or taken from verify's output; a file that is not one is a clear error
    report = tmp_path / "verify.json"
    report.write_text(json.dumps({"specs": [{"path": str(path), "results": [
        {"property": "capped", "kind": "invariant", "players": 2, "status": "proved"}]}]}))
    assert tool.main(run + ["--proved", str(report)]) == 0
    assert json.loads(capsys.readouterr().out)[0]["reached"]
    assert tool.main(run + ["--proved", str(path)]) == 2
    assert "--proved" in capsys.readouterr().err
    report.write_text(json.dumps({"specs": [{"results": [{"property": "capped", "kind": "invariant", "players": 3,
                                                          "status": "proved"}]}]}))
    assert tool.main(run + ["--proved", str(report)]) == 2
    assert "no result for 2 players" in capsys.readouterr().err
