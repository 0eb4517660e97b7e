"""RULES.md §6: two open ends, fitting, doubles crosswise, forced play, drawing, passing.

Includes the worked example of the product page and a perft-like reference
of legal-move counts.
"""

from __future__ import annotations

import pytest
from rules_support import T, deal, hand, legal, play, snapshot, start

from domino.rules import (
    DRAW_MOVE,
    PASS_MOVE,
    Deal,
    IllegalMoveError,
    InvalidMoveError,
    MatchState,
    Move,
    NotYourTurnError,
    RoundOverError,
    RoundState,
    Rules,
    shuffled_deal,
    view,
)

# The product page's example, as a 2-seat Klassisch deal: seat 0 opens 6|6;
# seat 1 ("you") holds 6|2, 2|2 and 5|3 (and four tiles without 6 or 2);
# seat 0 has nothing with 6 or 2, draws 3|3 (no fit), then 6|4 (fits).
EXAMPLE_HANDS = ("6|6 0|0 4|0 4|1 4|4 5|0 5|4", "6|2 2|2 5|3 1|0 1|1 3|0 5|1")
EXAMPLE_LAGER = "3|3 6|4"


def _example() -> RoundState:
    return start(Rules(seats=2), *EXAMPLE_HANDS, lager=EXAMPLE_LAGER)


def test_s6_product_page_worked_example() -> None:
    r = _example()
    # "Der Pasch 6|6 liegt, beide Enden zeigen eine 6."
    assert r.line_text() == "6|6" and (r.left, r.right) == (6, 6) and r.turn == 1
    # "Du legst 6|2 an das rechte Ende. Jetzt zeigt es eine 2, das linke Ende noch eine 6."
    assert "6|2 R" in legal(r) and "6|2 L" in legal(r)
    play(r, "6|2 R")
    assert (r.left, r.right) == (6, 2)
    # "Der Nächste hat nichts mit 6 oder 2, zieht zwei Steine, und der zweite passt."
    assert r.turn == 0 and legal(r) == ["D"]
    play(r, "D")
    assert r.turn == 0 and legal(r) == ["D"]  # 3|3 does not fit: draw again
    play(r, "D")
    assert r.turn == 0 and legal(r) == ["6|4 L", "P"]  # 6|4 fits the 6
    assert r.drew == 2
    # "Er legt ihn."
    play(r, "6|4 L")
    assert (r.left, r.right) == (4, 2) and r.turn == 1
    # "Dann legst du 2|2 quer an die 2. Das Ende bleibt eine 2."
    play(r, "2|2 R")
    assert (r.left, r.right) == (4, 2)
    assert r.right_double
    assert r.line_text() == "4|6 6|6 6|2 2|2"
    assert T("6|2") not in r.hand(1) and T("2|2") not in r.hand(1)
    assert T("5|3") in r.hand(1)
    # Everyone else learned that seat 0 drew twice, never which tiles.
    kinds = [(e.seat, e.kind) for e in view(r, 1).history]
    assert kinds == [(0, "open"), (1, "play"), (0, "draw"), (0, "draw"), (0, "play"), (1, "play")]
    assert [e.tile for e in view(r, 1).history if e.kind == "draw"] == [None, None]


def test_s6_a_tile_fits_an_end_when_one_half_equals_it_and_its_other_half_becomes_the_end() -> None:
    r = _example()
    play(r, "6|2 L")
    assert (r.left, r.right) == (2, 6)
    assert r.line_text() == "2|6 6|6"


def test_s6_a_tile_fitting_both_ends_offers_both_and_they_are_distinct_moves() -> None:
    r = _example()
    assert legal(r) == ["6|2 L", "6|2 R"]
    a, b = _example(), _example()
    play(a, "6|2 L")
    play(b, "6|2 R")
    assert a.line_text() == "2|6 6|6" and b.line_text() == "6|6 6|2"


def test_s6_a_tile_fitting_one_end_is_offered_there_only() -> None:
    r = _example()
    play(r, "6|2 R", "D", "D")
    assert legal(r) == ["6|4 L", "P"]
    with pytest.raises(IllegalMoveError) as info:
        r.apply(Move.parse("6|4 R"))
    assert info.value.code == "does_not_fit"
    assert "right end (2)" in str(info.value)


def test_s6_a_double_is_laid_crosswise_and_keeps_the_end() -> None:
    r = _example()
    play(r, "6|2 R", "D", "D", "6|4 L", "2|2 R")
    assert r.right == 2
    # The line never branches: two ends, whatever was laid.
    assert len(r.line) == 4


def test_s6_must_play_a_fitting_tile_neither_draw_nor_pass() -> None:
    r = _example()
    before = snapshot(r)
    for move in (DRAW_MOVE, PASS_MOVE):
        with pytest.raises(IllegalMoveError) as info:
            r.apply(move)
        assert info.value.code == "must_play"
        assert snapshot(r) == before


def test_s6_holding_none_with_a_lager_must_draw_not_pass() -> None:
    r = _example()
    play(r, "6|2 R")
    with pytest.raises(IllegalMoveError) as info:
        r.apply(PASS_MOVE)
    assert info.value.code == "must_draw"


def test_s6_draws_one_tile_at_a_time_until_one_fits_then_no_further() -> None:
    r = _example()
    play(r, "6|2 R", "D")
    assert len(r.lager) == 13 and r.drew == 1
    play(r, "D")
    assert len(r.lager) == 12 and r.drew == 2
    with pytest.raises(IllegalMoveError) as info:
        r.apply(DRAW_MOVE)
    assert info.value.code == "must_play"


def test_s6_after_drawing_a_fitting_tile_the_seat_may_pass_and_keep_it() -> None:
    r = _example()
    play(r, "6|2 R", "D", "D", "P")
    assert T("6|4") in r.hand(0) and T("3|3") in r.hand(0)
    assert r.turn == 1 and r.drew == 0
    # The pass is logged as a pass; the seat's next turn starts fresh.
    assert r.log[-1].kind == "pass"


def test_s6_with_an_empty_lager_the_seat_passes() -> None:
    # Seat 1 holds nothing with a 6 and draws all 14 tiles, none of which fits
    # while seat 0 still holds 6|5: the Lager is empty, it must pass.
    r = start(
        Rules(seats=2),
        "6|6 6|5 6|4 6|3 6|2 6|1 6|0",
        "0|0 1|0 2|0 3|0 4|0 5|0 1|1",
    )
    for _ in range(14):
        assert legal(r) == ["D"]
        play(r, "D")
    assert not r.lager and len(r.hand(1)) == 21
    assert legal(r) == ["P"]
    with pytest.raises(IllegalMoveError) as info:
        r.apply(DRAW_MOVE)
    assert info.value.code == "lager_empty"
    play(r, "P")
    assert r.turn == 0


def test_s6_with_lager_aus_the_seat_passes_at_once() -> None:
    r = start(
        Rules(seats=2, lager=False),
        "6|6 6|5 6|4 6|3 6|2 6|1 0|0",
        "1|0 2|0 3|0 4|0 5|0 1|1 2|1",
    )
    assert legal(r) == ["P"]
    with pytest.raises(IllegalMoveError) as info:
        r.apply(DRAW_MOVE)
    assert info.value.code == "no_lager"
    play(r, "P")
    sixes = ("6|1", "6|2", "6|3", "6|4", "6|5")
    assert r.turn == 0 and legal(r) == [f"{t} {e}" for t in sixes for e in "LR"]


def test_s6_paare_never_draws() -> None:
    rules = Rules(seats=4, pairs=True, lager=True)
    for seed in range(30):
        r = RoundState.start(rules, shuffled_deal(rules, seed=seed))
        while not r.over:
            assert "D" not in legal(r)
            r.apply(r.legal_moves()[0])


def test_s6_pass_is_legal_exactly_when_nothing_fits_and_no_draw_or_a_drawn_tile_fits() -> None:
    rules = Rules(seats=3)
    for seed in range(200):
        r = RoundState.start(rules, shuffled_deal(rules, seed=seed))
        while not r.over:
            h = r.hand(r.turn)
            fits = any(t.has(r.left) or t.has(r.right) for t in h)
            drawn = [e.tile for e in r.log if e.kind == "draw"][-r.drew :] if r.drew else []
            drawn_fits = any(t is not None and (t.has(r.left) or t.has(r.right)) for t in drawn)
            expected = (not fits and not r.can_draw) or drawn_fits
            assert ("P" in legal(r)) == expected
            assert ("D" in legal(r)) == (not fits and r.can_draw)
            r.apply(r.legal_moves()[-1])


def test_s6_not_your_turn_is_refused_and_changes_nothing() -> None:
    r = _example()
    before = snapshot(r)
    with pytest.raises(NotYourTurnError) as info:
        r.apply(Move.parse("4|1 L"), seat=0)
    assert info.value.code == "not_your_turn" and "seat 1's turn" in str(info.value)
    assert isinstance(info.value, IllegalMoveError)
    assert snapshot(r) == before
    assert not r.can(Move.parse("6|2 L"), seat=0)
    assert r.can(Move.parse("6|2 L"), seat=1)


def test_s6_a_tile_not_in_hand_is_refused() -> None:
    r = _example()
    before = snapshot(r)
    with pytest.raises(IllegalMoveError) as info:
        r.apply(Move.parse("6|5 L"))
    assert info.value.code == "not_in_hand" and "6|5" in str(info.value)
    assert snapshot(r) == before


@pytest.mark.parametrize("text", ["6|2 X", "6|2", "7|2 L", "L 6|2", "", "DD", "6|2 L R"])
def test_s6_malformed_moves_are_refused_as_malformed(text: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert not isinstance(info.value, IllegalMoveError)
    assert info.value.code == "bad_move_text"


def test_s6_moves_round_trip_through_text() -> None:
    from domino.rules import MOVES

    assert len(MOVES) == 58
    for m in MOVES:
        assert Move.parse(str(m)) is m
        assert eval(repr(m), {"Move": Move}) is m
    assert Move.parse(" 2|6 r ") is Move.parse("6|2 R")
    assert Move.parse("d") is DRAW_MOVE and Move.parse("p") is PASS_MOVE
    with pytest.raises(InvalidMoveError):
        Move.play(T("6|2"), "X")


def test_s6_moves_after_the_round_are_refused() -> None:
    r = start(
        Rules(seats=2, lager=False),
        "6|6 5|0 3|1 4|1 5|1 2|2 3|2",
        "0|0 1|0 2|0 3|0 4|0 1|1 2|1",
        out="6|5 6|4 6|3 6|2 6|1 6|0",
    )
    assert r.over
    with pytest.raises(RoundOverError):
        r.apply(PASS_MOVE)
    assert r.legal_moves() == ()


def test_s6_every_turn_public_learns_play_draw_count_and_pass() -> None:
    r = _example()
    play(r, "6|2 R", "D", "D", "P")
    for seat in (1, None):
        h = view(r, seat).history
        assert [(e.kind, None if e.tile is None else str(e.tile), e.end) for e in h] == [
            ("open", "6|6", None),
            ("play", "6|2", "R"),
            ("draw", None, None),
            ("draw", None, None),
            ("pass", None, None),
        ]


# -- perft-like reference ------------------------------------------------------
# The number of move sequences of a given depth from scripted deals, and the
# legal-move counts along a fixed playout (always the first legal move). The
# deals are explicit, so draws are deterministic and the counts are exact.
# Regenerate only when a rule deliberately changes; each figure was checked
# against the independent model of rules_reference.py (test_playouts).


def _perft(rules: Rules, deal: Deal, path: tuple[Move, ...], depth: int) -> int:
    """Move sequences of length ``depth`` (shorter where the round ends) after ``path``."""
    r = RoundState.start(rules, deal)
    for m in path:
        r.apply(m)
    if depth == 0 or r.over:
        return 1
    return sum(_perft(rules, deal, (*path, m), depth - 1) for m in r.legal_moves())


# (seats, lager, pairs, hands, Lager top first) -> [perft(1), perft(2), ...]
PERFT: list[tuple[int, bool, bool, tuple[str, ...], str, list[int]]] = [
    (
        2, True, False,
        ("6|3 4|2 5|3 1|0 5|4 3|1 2|2", "2|1 5|1 4|3 4|0 5|2 3|2 6|2"),
        "6|5 4|4 4|1 5|0 6|4 6|1 6|6 3|3 5|5 1|1 6|0 3|0 2|0 0|0",
        [8, 24, 98, 288, 834],
    ),
    (
        3, True, False,
        ("4|2 5|1 3|0 2|1 1|0", "6|3 3|2 6|2 5|4 5|3", "4|0 2|0 6|4 5|2 1|1"),
        "6|0 5|5 6|6 0|0 4|4 4|3 6|5 2|2 6|1 4|1 3|1 5|0 3|3",
        [6, 10, 14, 28],
    ),
    (
        4, True, False,
        ("6|2 3|2 3|0 5|2 6|1", "1|1 5|1 4|4 1|0 4|0", "5|3 0|0 4|2 3|3 6|0",
         "3|1 5|0 6|3 6|4 2|1"),
        "6|5 5|5 6|6 4|1 5|4 2|0 2|2 4|3",
        [2, 4, 12, 16],
    ),
    (
        4, False, True,
        ("1|1 2|2 3|3 6|4 6|1 0|0 5|0", "3|0 3|2 4|2 3|1 6|3 6|5 4|0",
         "2|1 2|0 1|0 6|2 6|0 4|1 4|4", "5|3 5|4 5|1 4|3 5|2 6|6 5|5"),
        "",
        [4, 14, 44, 126, 280],
    ),
    (
        3, False, False,
        ("6|3 5|4 6|0 5|3 6|6 3|1 5|2", "5|0 2|1 6|1 6|2 3|3 5|1 4|1",
         "2|2 2|0 4|4 4|3 6|4 3|2 1|0"),
        "",
        [4, 12, 36, 92],
    ),
]  # fmt: skip


@pytest.mark.parametrize("case", PERFT, ids=lambda c: f"{c[0]}seats-lager{c[1]}-pairs{c[2]}")
def test_s6_perft_reference_counts(
    case: tuple[int, bool, bool, tuple[str, ...], str, list[int]],
) -> None:
    seats, lager, pairs, hands, lager_top, expected = case
    rules = Rules(seats=seats, lager=lager, pairs=pairs)
    d = deal(rules, *hands, lager=lager_top)
    assert [_perft(rules, d, (), depth) for depth in range(1, len(expected) + 1)] == expected


def test_s6_the_worked_example_perft() -> None:
    rules = Rules(seats=2)
    d = deal(rules, *EXAMPLE_HANDS, lager=EXAMPLE_LAGER)
    assert [_perft(rules, d, (), depth) for depth in range(1, 9)] == [2, 2, 2, 4, 4, 10, 18, 28]


def test_s6_legal_move_counts_along_a_scripted_round() -> None:
    rules = Rules(seats=4)
    m = MatchState(
        rules,
        deal=deal(
            rules,
            "6|1 2|2 6|4 4|0 5|4",
            "3|0 4|3 5|5 0|0 5|2",
            "6|6 1|0 5|1 1|1 6|5",
            "5|0 6|0 6|3 2|1 3|2",
            lager="2|0 4|1 3|1 6|2 3|3 4|2 4|4 5|3",
        ),
    )
    counts = []
    while not m.round.over:
        counts.append(len(m.round.legal_moves()))
        m.apply(m.round.legal_moves()[0])
    assert counts == [4, 3, 1, 1, 3, 1, 2, 2, 1, 3, 2, 2, 1, 1, 1, 1, 1, 2, 1]
    assert m.round.result is not None and m.round.result.out_seat == 2
    assert hand(m.round, 2) == ""
