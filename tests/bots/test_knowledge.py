"""domino.bots.knowledge: what a seat infers never rules out the truth."""

import random

from domino.bots.knowledge import infer
from domino.rules import WITH, Deal, MatchState, Mode, RoundState, Rules, Tile, view

T = Tile.parse


def _matching(tiles: list[int], forbid: list[int]) -> bool:
    """Whether every tile can be given its own slot that does not forbid it."""
    owner: dict[int, int] = {}

    def place(t: int, seen: set[int]) -> bool:
        for k, f in enumerate(forbid):
            if f >> t & 1 or k in seen:
                continue
            seen.add(k)
            if k not in owner or place(owner[k], seen):
                owner[k] = t
                return True
        return False

    return all(place(t, set()) for t in tiles)


def test_the_true_hands_always_fit_the_inferred_slots() -> None:
    rng = random.Random(11)
    configs = [
        Rules.preset(Mode.KLASSISCH, 2),
        Rules.preset(Mode.BLITZ, 3),
        Rules.preset(Mode.ZUGEMAUERT, 2),
        Rules.preset(Mode.KLASSISCH, 4, pairs=True),
    ]
    checked = 0
    for k in range(160):
        rules = configs[k % len(configs)]
        r = MatchState(rules, seed=f"know/{k}").round
        while not r.over:
            me = r.turn
            know = infer(view(r, me))
            for s in range(rules.seats):
                if s == me:
                    continue
                truth = [t.index for t in r.hand(s)]
                assert len(know.slots[s]) == len(truth)
                assert _matching(truth, list(know.slots[s]))
                for n in range(7):
                    if know.lacks(s) >> n & 1:
                        assert not r.hands[s] & WITH[n]
                checked += 1
            r.apply(rng.choice(r.legal_moves()))
    assert checked > 1000


def test_a_pass_tells_which_numbers_a_seat_lacks() -> None:
    # Zugemauert, 2 seats: seat 0 opens 6|6; seat 1 has no 6 and must pass.
    deal = Deal(
        hands=(
            (T("6|6"), T("6|5"), T("6|4"), T("0|0"), T("1|0"), T("2|0"), T("3|0")),
            (T("5|5"), T("4|4"), T("3|3"), T("2|2"), T("1|1"), T("5|4"), T("3|2")),
        ),
        out=tuple(
            T(t)
            for t in (
                "4|0",
                "5|0",
                "6|0",
                "2|1",
                "3|1",
                "4|1",
                "5|1",
                "6|1",
                "4|2",
                "5|2",
                "6|2",
                "4|3",
                "5|3",
                "6|3",
            )
        ),
    )
    r = RoundState.start(Rules.preset(Mode.ZUGEMAUERT, 2), deal)
    assert r.turn == 1
    r.apply(r.legal_moves()[0])  # the pass
    know = infer(view(r, 0))
    assert know.lacks(1) >> 6 & 1
    # seat 0 still holds 6|5 and 6|4: every other 6 is out of play or on the table
    assert know.p_can_play(1, 6, 6) == 0.0
