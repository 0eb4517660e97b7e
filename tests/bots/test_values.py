"""domino.bots.values: the one play value and block value, and the greedy loop built on them."""

import random

from domino.bots.values import (
    FULL,
    GREEDY,
    BlockRow,
    alternatives,
    block_value,
    block_weights,
    greedy_block_es,
    greedy_es,
    play_value,
)
from domino.rules import Rules
from domino.rules.kernel import ES_COUNT, FIT, PLACE, plays_of


def _hands(rng: random.Random, n: int) -> list[int]:
    tiles = list(range(28))
    rng.shuffle(tiles)
    out = []
    for s in range(n):
        m = 0
        for t in tiles[s * 6 : s * 6 + rng.randint(1, 6)]:
            m |= 1 << t
        out.append(m)
    return out


def test_alternatives_are_every_fitting_play_in_move_order() -> None:
    for es in range(ES_COUNT):
        want = tuple(mv for mv in range(56) if PLACE[mv * ES_COUNT + es] >= 0)
        assert alternatives(es) == want


def test_greedy_es_is_the_best_greedy_play_value_first_on_ties() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        hand = _hands(rng, 1)[0]
        es = rng.randrange(ES_COUNT)
        if not hand & FIT[es]:
            continue
        fives = rng.random() < 0.5
        cands = plays_of(hand, es)
        want = max(cands, key=lambda mv: (play_value(hand, mv, es, fives, GREEDY), -mv))
        assert greedy_es(hand, es, fives) == want


def _total(hands: list[int], row: BlockRow, es: int, mv: int) -> float:
    fit = FIT[PLACE[mv * ES_COUNT + es]]
    stuck = block_value(row, lambda o: 1.0 if hands[o] and not hands[o] & fit else 0.0)
    return play_value(hands[0], mv, es, False, GREEDY) + stuck


def test_greedy_block_es_adds_the_block_value_of_the_known_hands() -> None:
    rng = random.Random(6)
    for seats, pairs in ((2, False), (3, False), (4, False), (4, True)):
        rules = Rules(seats=seats, pairs=pairs)
        rows = block_weights(rules)
        for _ in range(500):
            hands = _hands(rng, seats)
            es = rng.randrange(ES_COUNT)
            if not hands[0] & FIT[es]:
                continue

            want = max(plays_of(hands[0], es), key=lambda mv: (_total(hands, rows[0], es, mv), -mv))
            assert greedy_block_es(hands, 0, es, False, rows[0]) == want


def test_block_weights_halve_per_seat_and_count_a_partner_against() -> None:
    assert block_weights(Rules(seats=3)) == (
        ((1, 8.0), (2, 4.0)),
        ((2, 8.0), (0, 4.0)),
        ((0, 8.0), (1, 4.0)),
    )
    assert block_weights(Rules(seats=4, pairs=True))[0] == ((1, 8.0), (2, -4.0), (3, 2.0))


def test_play_value_prefers_going_out_and_follow_ups() -> None:
    # 6|6 played on a 6 end: with 6|5 left it keeps a follow-up, alone it goes out.
    from domino.rules import Tile
    from domino.rules.kernel import ends_state

    es = ends_state(6, 3, False, False)
    dd = Tile.of(6, 6)
    mv = dd.index * 2
    alone = play_value(dd.mask, mv, es, False, FULL)
    kept = play_value(dd.mask | Tile.of(6, 5).mask, mv, es, False, FULL)
    assert alone > 1000 > kept == 12 + 3 + 6 + 1.5
    assert play_value(dd.mask | Tile.of(6, 5).mask, mv, es, False, GREEDY) == 12 + 3 + 6
