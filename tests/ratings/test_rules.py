"""The rating rules (issue 23) through the library: who gains, who loses, what a tie, a
leaver, a team or a fixed rating does. Hypothesis draws the tables."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino.bots import LEVELS
from domino.ratings import (
    BOT_RATINGS,
    START,
    Entrant,
    Skill,
    bot_level_for,
    bot_skill,
    display,
    pool_of,
    rate,
    start_skill,
)

skills = st.builds(
    Skill,
    mu=st.floats(min_value=5.0, max_value=45.0),
    sigma=st.floats(min_value=0.5, max_value=25.0 / 3.0),
)


@st.composite
def tables(draw: st.DrawFn) -> list[Entrant]:
    """2-4 sides (of one or two seats, as in Paare), places with ties, some leavers,
    some fixed ratings."""
    n = draw(st.integers(2, 4))
    size = draw(st.sampled_from([1, 2])) if n == 2 else 1
    places = draw(st.lists(st.integers(1, n), min_size=n, max_size=n))
    out = []
    for side in range(n):
        for k in range(size):
            out.append(
                Entrant(
                    key=f"s{side}k{k}",
                    skill=draw(skills),
                    side=side,
                    place=places[side],
                    left=draw(st.booleans()) and draw(st.booleans()),
                    fixed=draw(st.booleans()) and draw(st.booleans()),
                )
            )
    return out


@settings(max_examples=300, deadline=None)
@given(tables())
def test_a_winner_never_loses_rating(table: list[Entrant]) -> None:
    # The side alone in first place, nobody of it left: none of its rated players loses.
    new = rate(table)
    firsts = {e.side for e in table if e.place == 1 and not e.left}
    if len(firsts) != 1 or any(e.left and e.side in firsts for e in table):
        return
    for e in table:
        if e.side in firsts and not e.fixed:
            assert new[e.key].mu >= e.skill.mu - 1e-9


@settings(max_examples=300, deadline=None)
@given(tables(), skills)
def test_a_better_place_never_gains_less_than_a_worse_one_of_equal_rating(
    table: list[Entrant], skill: Skill
) -> None:
    # Two players of equal rating at one table (one seat each): the one ranked above
    # gains at least as much as the one ranked below; a lower place never takes rating
    # from a winner.
    table = [e for e in table if e.side not in (0, 1)]
    hi = Entrant("hi", skill, 0, 1)
    lo = Entrant("lo", skill, 1, 2)
    others = [Entrant(e.key, e.skill, e.side, e.place + 1, e.left, e.fixed) for e in table]
    new = rate([hi, lo, *others])
    assert new["hi"].mu - skill.mu >= new["lo"].mu - skill.mu - 1e-9
    assert new["hi"].mu >= skill.mu - 1e-9  # place 1, nobody of its side left


@settings(max_examples=200, deadline=None)
@given(skills)
def test_a_tie_of_two_equals_moves_neither(skill: Skill) -> None:
    new = rate([Entrant("a", skill, 0, 1), Entrant("b", skill, 1, 1)])
    assert new["a"].mu == pytest.approx(skill.mu, abs=1e-9)
    assert new["b"].mu == pytest.approx(skill.mu, abs=1e-9)
    assert display(new["a"]) == display(skill)


@settings(max_examples=200, deadline=None)
@given(tables())
def test_a_leaver_ranks_last(table: list[Entrant]) -> None:
    # A side with a seat that left is rated exactly as if it had finished below
    # everyone who stayed (the leavers tie among themselves).
    below = max(e.place for e in table) + 1
    left_sides = {e.side for e in table if e.left}
    as_last = [
        Entrant(e.key, e.skill, e.side, below if e.side in left_sides else e.place, False, e.fixed)
        for e in table
    ]
    got, want = rate(table), rate(as_last)
    assert got.keys() == want.keys()
    for k in got:
        assert got[k] == want[k]


@settings(max_examples=200, deadline=None)
@given(skills, st.sampled_from(LEVELS))
def test_a_leaver_never_gains_against_a_bot_who_stayed(skill: Skill, level: str) -> None:
    # Even from first place in the standings.
    new = rate(
        [Entrant("me", skill, 0, 1, left=True), Entrant("bot", bot_skill(level), 1, 2, fixed=True)]
    )
    assert new["me"].mu < skill.mu


@settings(max_examples=200, deadline=None)
@given(tables())
def test_fixed_ratings_are_never_updated_and_the_others_are(table: list[Entrant]) -> None:
    new = rate(table)
    rated = {e.key for e in table if not e.fixed}
    if len({e.side for e in table}) >= 2 and rated:
        assert set(new) == rated
    else:
        assert new == {}


def test_paare_rates_the_two_teams_alike() -> None:
    a, b = start_skill(), start_skill()
    new = rate(
        [
            Entrant("a1", a, 0, 1),
            Entrant("a2", b, 0, 1),
            Entrant("b1", bot_skill("profi"), 1, 2, fixed=True),
            Entrant("b2", bot_skill("profi"), 1, 2, fixed=True),
        ]
    )
    assert new["a1"] == new["a2"] and new["a1"].mu > a.mu


def test_beating_a_stronger_bot_gains_more_than_beating_a_weaker_one() -> None:
    gains = [
        rate([Entrant("me", start_skill(), 0, 1), Entrant("b", bot_skill(lv), 1, 2, fixed=True)])[
            "me"
        ].mu
        for lv in LEVELS
    ]
    assert gains == sorted(gains) and len(set(gains)) == len(gains)


def test_bot_ratings_cover_every_level_in_order_of_strength() -> None:
    assert list(BOT_RATINGS) == list(LEVELS)
    values = [BOT_RATINGS[lv] for lv in LEVELS]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert BOT_RATINGS["fortgeschritten"] == START  # the anchor (docs/bots.md)
    with pytest.raises(ValueError):
        bot_skill("nobody")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=500.0, max_value=2500.0), max_size=4))
def test_bot_level_for_picks_the_closest_fixed_rating(ratings: list[float]) -> None:
    mean = sum(ratings) / len(ratings) if ratings else START
    level = bot_level_for(ratings)
    assert all(abs(BOT_RATINGS[level] - mean) <= abs(v - mean) for v in BOT_RATINGS.values())


def test_pools() -> None:
    assert [pool_of(2, False), pool_of(3, False), pool_of(4, False), pool_of(4, True)] == [
        "2",
        "3",
        "4",
        "paare",
    ]
    for bad in ((3, True), (5, False), (1, False)):
        with pytest.raises(ValueError):
            pool_of(bad[0], bool(bad[1]))


def test_doctests() -> None:
    import doctest

    import domino.ratings

    assert doctest.testmod(domino.ratings).failed == 0
