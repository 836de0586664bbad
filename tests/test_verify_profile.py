"""benchmarks/verify_profile.py: where one player count's verify time goes."""

from __future__ import annotations

import json

from conftest import benchmark
from test_verify import SPELLS


def test_every_question_is_put_down_to_a_part_of_the_run(tmp_path, capsys):
    path = tmp_path / "spells.rules"
    path.write_text(SPELLS.replace(" GUARD", "").replace(" RANK", ""))
    tool = benchmark("verify_profile")
    assert tool.main([str(path), "--players", "3", "--explore", "2000", "--games", "5", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    parts = {q["part"] for q in doc["questions"]}
    assert {"prove_invariants", "check_faults", "check_deadlock"} <= parts
    assert abs(doc["z3_seconds"] - sum(q["seconds"] for q in doc["questions"])) < 0.05
    assert 0 < doc["z3_seconds"] <= doc["seconds"] and doc["statuses"].get("proved", 0) >= 3
    # the probe leaves verify as it was
    import z3
    from verifier import verify as V
    assert z3.Solver.check.__name__ == "check" and V.Verifier.exploration.__name__ == "exploration"
    assert tool.main([str(path), "--players", "3", "--explore", "0", "--games", "0"]) == 0
    assert "statuses: " in capsys.readouterr().out


def test_a_bad_spec_or_player_count_is_a_clear_error(tmp_path, capsys):
    path = tmp_path / "spells.rules"
    path.write_text(SPELLS.replace(" GUARD", "").replace(" RANK", ""))
    tool = benchmark("verify_profile")
    assert tool.main([str(path), "--players", "7"]) == 2
    assert "is for 2 to 3 players, not 7" in capsys.readouterr().err
    assert tool.main([str(tmp_path / "missing.rules"), "--players", "3"]) == 2
    assert "missing.rules" in capsys.readouterr().err
