"""Find a position for a Tipp (domino.lessons.tips): ``python tools/find_tips.py KIND [SEED]``.

Plays seeded three-seat rounds with Profi at every seat; at each of seat 0's turns with two
or more tiles to play, it asks whether the tip KIND singles out one of them:

- heavy:  the heaviest playable tile (not a double, fitting one end only) by at least 5
          pips over every other;
- keep:   the hand holds a number three times or more, and one play keeps all of them
          while another spends one (pips within 2, so weight does not decide);
- offer:  an opponent drew or passed at some ends; one play shows such a number at a new
          end, another does not (pips within 2);
- double: a double against plays of tiles within 2 pips of it;
- count:  the Lager is empty and one play blocks the round with seat 0 holding the fewest pips.

The candidate is kept when Meister's judgement (domino.analysis.judge, 400 samples) prefers
that play by at least 1 point under six different sample seeds. It prints a ``Tip(...)``
to paste into domino/lessons/tips.py, whose test judges it again.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

from domino.analysis.judge import judge
from domino.bots.profi import Profi
from domino.rules import Deal, Move, RoundState, Rules, Tile, shuffled_deal, view

RULES = Rules(seats=3)
SAMPLES = 400
MARGIN = 1.0


def pips(t: Tile) -> int:
    return t.high + t.low


def nums(t: Tile) -> set[int]:
    return {t.high, t.low}


def replay(deal: Deal, moves: list[str]) -> RoundState:
    state = RoundState.start(RULES, deal)
    for m in moves:
        state.apply(Move.parse(m))
    return state


def lacking(state: RoundState) -> set[int]:
    """Numbers an opponent of seat 0 showed it lacks (it drew or passed facing them)."""
    out: set[int] = set()
    for e in state.log:
        if e.seat != 0 and e.kind in ("draw", "pass") and e.ends:
            out |= set(e.ends)
    return out


def close(a: Move, others: list[Move]) -> bool:
    assert a.tile is not None
    return all(m.tile is not None and abs(pips(m.tile) - pips(a.tile)) <= 2 for m in others)


def pick(kind: str, deal: Deal, moves: list[str], state: RoundState) -> Move | None:
    plays = [m for m in state.legal_moves() if m.tile is not None]
    if len({m.tile for m in plays}) < 2:
        return None
    hand = state.hand(0)
    if kind == "heavy":
        a = max(plays, key=lambda m: pips(m.tile) if m.tile else 0)
        assert a.tile is not None
        rest = [m for m in plays if m.tile != a.tile]
        once = sum(m.tile == a.tile for m in plays) == 1  # one end: the tile, not the end, decides
        if (
            once
            and not a.tile.is_double
            and all(m.tile is not None and pips(a.tile) >= pips(m.tile) + 5 for m in rest)
        ):
            return a
    elif kind == "keep":
        counts = {n: sum(n in nums(t) for t in hand) for n in range(7)}
        n = max(counts, key=lambda k: counts[k])
        keep = [m for m in plays if m.tile is not None and n not in nums(m.tile)]
        spend = [m for m in plays if m.tile is not None and n in nums(m.tile)]
        if counts[n] >= 3 and keep and spend and close(keep[0], spend):
            return keep[0]
    elif kind == "offer":
        lack = lacking(state) - {state.left, state.right}
        good: list[Move] = []
        bad: list[Move] = []
        for m in plays:
            after = replay(deal, [*moves, str(m)])
            (good if {after.left, after.right} & lack else bad).append(m)
        if lack and good and bad and close(good[0], bad):
            return good[0]
    elif kind == "double":
        doubles = [m for m in plays if m.tile is not None and m.tile.is_double]
        rest = [m for m in plays if m.tile is not None and not m.tile.is_double]
        if doubles and rest and close(doubles[0], rest):
            return doubles[0]
    elif kind == "count":
        for m in plays:
            after = replay(deal, [*moves, str(m)])
            while not after.over and [str(x) for x in after.legal_moves()] == ["P"]:
                after.apply(Move.parse("P"))
            result = after.result
            if result is not None and result.reason == "blocked" and result.winner == 0:
                return m
    return None


def meister_agrees(state: RoundState, move: Move, kind: str) -> bool:
    v = view(state, 0)
    for k in range(6):
        verdict = judge(v, move, SAMPLES, random.Random(f"{kind}-{k}"))
        if verdict.best != move or verdict.options[0][1] - verdict.options[1][1] < MARGIN:
            return False
    return True


def search(kind: str, seed0: int, rounds: int = 5000) -> str | None:
    for seed in range(seed0, seed0 + rounds):
        deal = shuffled_deal(RULES, seed=seed)
        state = RoundState.start(RULES, deal)
        bots: list[Callable[..., Move]] = [Profi(seed=f"{seed}-{i}").choose for i in range(3)]
        moves: list[str] = []
        while not state.over:
            if state.turn == 0:
                move = pick(kind, deal, moves, state)
                if move is not None and meister_agrees(state, move, kind):
                    d = deal.to_dict()
                    d.pop("out")
                    return (
                        f"Tip(key={kind!r}, seats=3, deal={d!r}, moves={tuple(moves)!r}, "
                        f"answer={str(move)!r})"
                    )
            m = bots[state.turn](view(state, state.turn))
            state.apply(m)
            moves.append(str(m))
    return None


if __name__ == "__main__":
    found = search(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    print(found or "none found")
    raise SystemExit(0 if found else 1)
