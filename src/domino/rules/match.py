"""The match (RULES.md §9): rounds until a side reaches the target, at most 8.

>>> m = MatchState(Rules(seats=2), seed="doc")
>>> m.round.over, m.round_no
(False, 1)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from .config import MAX_ROUNDS, Rules
from .deal import Deal, shuffled_deal
from .errors import RoundOverError
from .moves import Move
from .round import Event, RoundResult, RoundState

TARGET: Final = "target"
ROUNDS: Final = "rounds"
ABANDONED: Final = "abandoned"


@dataclass(frozen=True, slots=True)
class Standing:
    """One side's line in the standings: ``side`` is a seat, or a team with Paare."""

    side: int
    points: int
    place: int


def rank(points: list[int] | tuple[int, ...]) -> tuple[Standing, ...]:
    """Standings by points, highest first; equal points share the place (1, 1, 3).

    >>> [(s.side, s.place) for s in rank([10, 30, 10])]
    [(1, 1), (0, 2), (2, 2)]
    """
    order = sorted(range(len(points)), key=lambda i: (-points[i], i))
    out: list[Standing] = []
    for pos, side in enumerate(order):
        place = pos + 1
        if pos and points[side] == points[order[pos - 1]]:
            place = out[-1].place
        out.append(Standing(side, points[side], place))
    return tuple(out)


class MatchState:
    """A whole match: its rules, its rounds' deals and states, the points.

    Deals come from ``seed`` (round k is shuffled with ``Random(f"{seed}/{k}")``)
    unless :meth:`start_round` is given an explicit deal.
    """

    def __init__(
        self, rules: Rules, seed: object = None, deal: Deal | None = None, *, auto: bool = True
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.deals: list[Deal] = []
        self.results: list[RoundResult] = []
        self.rounds: list[RoundState] = []  # every round's state, for records and replays
        self.finished_reason: str | None = None
        self.round: RoundState
        if auto or deal is not None:
            self.start_round(deal)

    @property
    def round_no(self) -> int:
        return len(self.deals)

    def deal_for(self, round_no: int) -> Deal:
        """The seeded deal of round ``round_no`` (1-based)."""
        return shuffled_deal(self.rules, rng=random.Random(f"{self.seed}/{round_no}"))

    def start_round(self, deal: Deal | None = None) -> RoundState:
        """Deal the next round (seeded unless ``deal`` is given) and open it."""
        if self.over:
            raise RoundOverError("The match is over.", "match_over")
        if self.deals and not self.round.over:
            raise RoundOverError("The current round is not over yet.", "round_running")
        if deal is None:
            deal = self.deal_for(self.round_no + 1)
        self.round = RoundState.start(self.rules, deal)
        self.deals.append(deal)
        self.rounds.append(self.round)
        if self.round.result is not None:
            self.results.append(self.round.result)
        return self.round

    def apply(self, move: Move, seat: int | None = None) -> Event:
        """Make ``move`` in the current round; records the result when it ends."""
        if self.over:
            raise RoundOverError("The match is over.", "match_over")
        ev = self.round.apply(move, seat)
        if self.round.result is not None:
            self.results.append(self.round.result)
        return ev

    @property
    def scores(self) -> tuple[int, ...]:
        """Points per side now: finished rounds plus this round's Fünferpunkte."""
        pts = [0] * self.rules.sides
        for r in self.results:
            for i, p in enumerate(r.totals):
                pts[i] += p
        if self.deals and self.round.result is None:
            for i, p in enumerate(self.round.side_fives):
                pts[i] += p
        return tuple(pts)

    @property
    def over(self) -> bool:
        """The match is checked only between rounds (§9)."""
        if self.finished_reason is not None:
            return True
        if not self.deals or self.round.result is None:
            return False
        if max(self.scores) >= self.rules.target_points:
            self.finished_reason = TARGET
        elif self.round_no >= MAX_ROUNDS:
            self.finished_reason = ROUNDS
        return self.finished_reason is not None

    def end_now(self) -> None:
        """End the match with the standings of this moment (no human left, §10)."""
        self.finished_reason = ABANDONED

    def standings(self) -> tuple[Standing, ...]:
        return rank(self.scores)

    def place_of_seat(self, seat: int) -> int:
        """The seat's place (with Paare: its team's place)."""
        side = self.rules.side_of(seat)
        return next(s.place for s in self.standings() if s.side == side)
