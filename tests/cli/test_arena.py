"""domino arena: seat rotation, counting, reproducibility, a short smoke run."""

from collections import Counter

import pytest

from domino.cli import main
from domino.cli.arena import percentile, play_arena, seat_levels, wilson
from domino.rules import Mode, Rules


@pytest.mark.parametrize(
    "rules",
    [Rules(seats=2), Rules(seats=3), Rules(seats=4), Rules.preset(Mode.KLASSISCH, 4, pairs=True)],
)
def test_each_level_sits_at_each_seat_equally_often(rules: Rules) -> None:
    cycle = 12
    counts: Counter[tuple[int, str]] = Counter()
    for i in range(cycle):
        at = seat_levels(rules, ("a", "b"), i)
        assert set(at) == {"a", "b"}
        if rules.pairs:
            assert at[0] == at[2] and at[1] == at[3]
        for s, lv in enumerate(at):
            counts[(s, lv)] += 1
        if i % 2:
            # the twin of match i - 1 (same deal) swaps the levels' seats
            prev = seat_levels(rules, ("a", "b"), i - 1)
            assert [{"a": "b", "b": "a"}[x] for x in prev] == at
    assert len(set(counts.values())) == 1


def test_wilson_interval_and_percentile() -> None:
    lo, hi = wilson(1000, 2000)
    assert lo < 0.5 < hi
    assert wilson(1200, 2000)[0] > 0.5
    assert percentile([5, 1, 3, 2, 4], 50) == 3.0
    assert percentile(list(range(1, 101)), 99) == 99.0


def test_counts_add_up_and_results_are_reproducible() -> None:
    rules = Rules.preset(Mode.BLITZ, 3)
    a = play_arena(rules, ("fortgeschritten", "anfaenger"), 6, "t").summary()
    b = play_arena(rules, ("fortgeschritten", "anfaenger"), 6, "t").summary()
    per_a, per_b = a["per_level"], b["per_level"]
    assert sum(d["wins"] for d in per_a.values()) == 6
    for lv in per_a:
        for key in ("wins", "ties", "avg_points", "rounds_won", "decisions"):
            assert per_a[lv][key] == per_b[lv][key]
    assert sum(d["rounds_won"] for d in per_a.values()) <= a["rounds"]


def test_the_command_runs_and_prints_each_level(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "meister", "anfaenger", "--matches", "2", "--seed", "smoke"])
    assert code == 0
    captured = capsys.readouterr()
    assert "meister" in captured.out and "anfaenger" in captured.out
    assert "2/2" in captured.err  # the progress bar


def test_checkpoints_are_prefixes_of_the_run() -> None:
    rules = Rules(seats=2)
    seen: list[tuple[int, float]] = []
    play_arena(
        rules,
        ("profi", "anfaenger"),
        8,
        "cp",
        checkpoint=lambda r: seen.append((r.matches, r.stats["profi"].wins)),
        every=4,
    )
    assert [m for m, _ in seen] == [4]
    prefix = play_arena(rules, ("profi", "anfaenger"), 4, "cp")
    assert prefix.stats["profi"].wins == seen[0][1]
