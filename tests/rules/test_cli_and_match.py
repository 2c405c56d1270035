"""The ``tranca`` command and whole matches played by bots."""

import json

import pytest

from tranca.cli import main
from tranca_rules.bots import GreedyBot
from tranca_rules.engine import apply, legal_moves
from tranca_rules.match import DRAWN, Match
from tranca_rules.presets import PRESETS


def test_simulate_prints_a_json_summary_with_the_invariant_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["simulate", "--preset", "tranca-000", "--players", "4", "--deals", "3", "--check"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0
    assert summary["deals"] == 3 and summary["moves"] > 0
    assert summary["invariants_ok"] is True
    assert len(summary["mean_scores"]) == 2
    assert summary["moves_per_second"] > 0


def test_demo_plays_a_match_to_its_end(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--preset", "tranca-001", "--players", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "deal over" in out and "match over" in out


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_match_to_its_target_ends_with_a_winner(preset: str) -> None:
    rules = PRESETS[preset]
    players = rules.player_counts[0]
    match = Match(rules, players, seed=5)
    bots = [GreedyBot(k) for k in range(players)]
    for _ in range(60):
        s = match.deal
        while not s.is_over:
            apply(s, s.turn, bots[s.turn].choose(s, legal_moves(s)))
        match.finish_deal()
        if match.is_over:
            break
    assert match.is_over
    assert sum(sum(d) for d in match.deal_scores) == sum(match.totals)
    if rules.target_score:
        assert max(match.totals) >= rules.target_score
    else:
        assert len(match.deal_scores) == 1 or match.winner != DRAWN
    if match.winner >= 0:
        assert match.totals[match.winner] == max(match.totals)
    restored = Match.from_dict(match.to_dict())
    assert restored.to_dict() == match.to_dict()
