"""RULES.md §4: shuffling, hand sizes, the Lager, tiles out of play, explicit deals."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from rules_support import T, deal, play, start, tiles

from domino.rules import TILES, Deal, InvalidDealError, RoundState, Rules, shuffled_deal, view

# (seats, lager, pairs) -> (hand size, Lager size, out of play)
SIZES = {
    (2, True, False): (7, 14, 0),
    (3, True, False): (5, 13, 0),
    (4, True, False): (5, 8, 0),
    (2, False, False): (7, 0, 14),
    (3, False, False): (7, 0, 7),
    (4, False, False): (7, 0, 0),
    (4, True, True): (7, 0, 0),
    (4, False, True): (7, 0, 0),
}


@pytest.mark.parametrize("key", list(SIZES))
def test_s4_hand_lager_and_out_sizes_for_every_combination(
    key: tuple[int, bool, bool],
) -> None:
    seats, lager, pairs = key
    rules = Rules(seats=seats, lager=lager, pairs=pairs)
    size, lager_size, out = SIZES[key]
    assert rules.hand_size == size
    for seed in range(5):
        d = shuffled_deal(rules, seed=seed)
        d.validate(rules)
        assert [len(h) for h in d.hands] == [size] * seats
        assert (len(d.lager), len(d.out)) == (lager_size, out)
        everything = [t for h in d.hands for t in h] + list(d.lager) + list(d.out)
        assert sorted(everything) == list(TILES)


def test_s4_a_seed_makes_a_deal_reproducible_and_seeds_differ() -> None:
    rules = Rules(seats=3)
    assert shuffled_deal(rules, seed="x") == shuffled_deal(rules, seed="x")
    deals = {shuffled_deal(rules, seed=s) for s in range(50)}
    assert len(deals) == 50
    # A given generator is used and advanced.
    rng = random.Random(5)
    assert shuffled_deal(rules, rng=rng) != shuffled_deal(rules, rng=rng)


def test_s4_the_shuffle_is_uniform_enough() -> None:
    # Each tile lands in seat 0's hand with probability 7/28; 4000 deals put
    # each count near 1000 (sd ~27). A fixed seed keeps this test exact.
    rules = Rules(seats=2)
    rng = random.Random(404)
    counts: Counter[int] = Counter()
    first_draw: Counter[int] = Counter()
    for _ in range(4000):
        d = shuffled_deal(rules, rng=rng)
        counts.update(t.index for t in d.hands[0])
        first_draw[d.lager[0].index] += 1
    assert all(850 < counts[t.index] < 1150 for t in TILES), counts
    assert all(90 < first_draw[t.index] < 210 for t in TILES), first_draw


def test_s4_the_lager_is_drawn_from_the_top_in_shuffled_order() -> None:
    # Seat 1 holds nothing with a 6; it draws 5|0, 4|1, then 6|5, which fits.
    r = start(
        Rules(seats=2),
        "6|6 0|0 1|0 2|0 3|0 1|1 2|1",
        "2|2 3|1 3|2 4|2 3|3 4|3 4|4",
        lager="5|0 4|1 6|5",
    )
    assert r.turn == 1
    play(r, "D", "D", "D")
    assert [str(e.tile) for e in r.log[1:]] == ["5|0", "4|1", "6|5"]
    assert {T("5|0"), T("4|1"), T("6|5")} <= set(r.hand(1))
    assert len(r.lager) == 11


def test_s4_lager_aus_deals_seven_each_and_leftovers_are_out_of_play() -> None:
    rules = Rules.preset("zugemauert", 3)
    d = shuffled_deal(rules, seed=9)
    r = RoundState.start(rules, d)
    assert len(d.out) == 7 and not d.lager
    assert not r.can_draw
    # Nobody sees them, not even at the round's end.
    while not r.over:
        r.apply(r.legal_moves()[0])
    for seat in (0, 1, 2, None):
        v = view(r, seat)
        assert v.lager_count == 0
        assert not {str(t) for t in d.out} & _strings(v.to_dict())
    assert r.result is not None
    assert not set(d.out) & {t for h in r.result.hands for t in h}


def test_s4_paare_deals_all_28_and_has_no_lager_whatever_lager_says() -> None:
    for lager in (True, False):
        rules = Rules(seats=4, pairs=True, lager=lager)
        d = shuffled_deal(rules, seed=2)
        assert [len(h) for h in d.hands] == [7, 7, 7, 7]
        assert d.lager == () and d.out == ()
        r = RoundState.start(rules, d)
        assert not r.can_draw


def test_s4_everyone_sees_counts_never_tiles() -> None:
    rules = Rules(seats=3)
    r = RoundState.start(rules, shuffled_deal(rules, seed=4))
    for seat in (0, 1, 2, None):
        v = view(r, seat)
        assert v.lager_count == 13
        assert v.hand_counts == tuple(len(r.hand(i)) for i in range(3))
        assert sum(v.hand_counts) == 14  # 15 dealt, one opened


def test_s4_an_explicit_deal_scripts_any_position() -> None:
    rules = Rules(seats=2)
    d = deal(rules, "6|6 6|2 2|2 5|3 0|0 1|0 4|0", "4|1 3|3 4|4 5|1 1|1 5|5 3|1", lager="3|0")
    assert d.hands[0] == tiles("6|6 6|2 2|2 5|3 0|0 1|0 4|0")
    assert d.lager[0] is T("3|0") and len(d.lager) == 14
    assert Deal.from_dict(d.to_dict()) == d


@pytest.mark.parametrize(
    "rules,d,code",
    [
        (Rules(seats=3), Deal(((),) * 2), "deal_seats"),
        (Rules(seats=2), Deal((TILES[:7], TILES[7:13]), TILES[13:]), "deal_hand_size"),
        (Rules(seats=2), Deal((TILES[:7], TILES[7:14]), TILES[14:27]), "deal_lager"),
        (Rules(seats=2), Deal((TILES[:7], TILES[7:14]), (), TILES[14:]), "deal_lager"),
        (Rules(seats=2, lager=False), Deal((TILES[:7], TILES[7:14]), TILES[14:]), "deal_lager"),
        (Rules(seats=2), Deal((TILES[:7], TILES[6:13]), TILES[13:27]), "deal_twice"),
        (Rules(seats=4, pairs=True), Deal((TILES[:7],) * 4), "deal_twice"),
    ],
)
def test_s4_deals_that_do_not_account_for_28_tiles_are_refused(
    rules: Rules, d: Deal, code: str
) -> None:
    with pytest.raises(InvalidDealError) as info:
        RoundState.start(rules, d)
    assert info.value.code == code
    assert str(info.value)


@pytest.mark.parametrize(
    "data",
    [{}, {"hands": 3}, {"hands": [["7|7"]]}, {"hands": [["6|2"]], "lager": ["x"]}, None],
)
def test_s4_unreadable_deals_are_refused(data: object) -> None:
    with pytest.raises(InvalidDealError) as info:
        Deal.from_dict(data)
    assert info.value.code == "deal_unreadable"


def _strings(data: object) -> set[str]:
    import json
    import re

    return set(re.findall(r"\d\|\d", json.dumps(data)))
