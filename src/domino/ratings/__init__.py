"""Ratings (issue 23): one openskill rating per pool, the rules of what a match says.

Pure: no I/O, no clock. The maths is the ``openskill`` library's (Weng-Lin, the
Plackett-Luce model, made for several players and for teams); this module only decides
what goes in:

- **Pools**: one per seat count and Paare (``"2"``, ``"3"``, ``"4"``, ``"paare"``).
  Modes share a pool: a mode changes the scoring, not who plays better, and four pools
  already split the few players a small site has (docs/rules.md).
- **Places** come from the match's standings; shared places are ties. Paare rates the
  two teams. A side with a seat that left ranks last (below every side without one);
  time with a stand-in counts as played (the seat keeps its place).
- **Fixed ratings**: bots (:data:`BOT_RATINGS`, calibrated from the arena,
  docs/bots.md) and guests (the start rating) take part but are never updated, so an
  account alone at a table of bots is rated against them.
- **Shown** as one number on a familiar scale, :data:`START` (1500) at the start,
  provisional (``?``) for the first :data:`PROVISIONAL_MATCHES` rated matches.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

__all__ = [
    "BOT_RATINGS",
    "BOT_SIGMA",
    "POOLS",
    "PROVISIONAL_MATCHES",
    "SCALE",
    "START",
    "Entrant",
    "Skill",
    "bot_level_for",
    "bot_skill",
    "display",
    "pool_of",
    "provisional",
    "rate",
    "start_skill",
]

#: The pools: seats 2, 3, 4 each, and 4 as Paare.
POOLS: Final = ("2", "3", "4", "paare")
#: The shown rating of a newcomer.
START: Final = 1500.0
#: Shown points per openskill ``mu`` unit: the library's default prior (mu 25) shows as
#: 1500; its beta (25/6) is 250 shown points, about Elo's distance for a 4:1 favourite.
SCALE: Final = START / 25.0
#: A rating is provisional (shown with ``?``) until this many rated matches.
PROVISIONAL_MATCHES: Final = 10
#: The uncertainty of a bot's fixed rating (mu units): its strength is measured.
BOT_SIGMA: Final = 1.0

#: The fixed shown rating of each bot level, from the arena's win rates (docs/bots.md,
#: ``tools/calibrate_bots.py``): Fortgeschritten, the stand-in's level, is the anchor
#: at the start rating, the others by the gap openskill predicts for their win rate.
BOT_RATINGS: Final[dict[str, float]] = {
    "anfaenger": 1281.0,
    "fortgeschritten": 1500.0,
    "profi": 1697.0,
    "meister": 1933.0,
}

#: The library's model with its defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300).
MODEL: Final = PlackettLuce()


@dataclass(frozen=True, slots=True)
class Skill:
    """One rating as the library keeps it: the mean and its uncertainty (mu units)."""

    mu: float
    sigma: float

    @property
    def shown(self) -> float:
        """The rating on the shown scale (unrounded)."""
        return self.mu * SCALE


def start_skill() -> Skill:
    """A newcomer's (and a guest's) rating: the library's prior."""
    return Skill(MODEL.mu, MODEL.sigma)


def bot_skill(level: str) -> Skill:
    """A bot level's fixed rating; ``ValueError`` for an unknown level."""
    try:
        return Skill(BOT_RATINGS[level] / SCALE, BOT_SIGMA)
    except KeyError:
        raise ValueError(f"No rating for bot level {level!r}.") from None


def display(skill_or_shown: Skill | float) -> int:
    """The number shown.

    >>> display(start_skill())
    1500
    >>> display(1513.6)
    1514
    """
    value = skill_or_shown.shown if isinstance(skill_or_shown, Skill) else skill_or_shown
    return round(value)


def provisional(matches: int) -> bool:
    """Whether a rating after ``matches`` rated matches is shown with ``?``.

    >>> provisional(9), provisional(10)
    (True, False)
    """
    return matches < PROVISIONAL_MATCHES


def pool_of(seats: int, pairs: bool) -> str:
    """The pool of a table.

    >>> pool_of(4, True), pool_of(3, False)
    ('paare', '3')
    """
    if pairs:
        if seats != 4:
            raise ValueError("Paare is played with 4 seats.")
        return "paare"
    if seats not in (2, 3, 4):
        raise ValueError(f"No pool for {seats} seats.")
    return str(seats)


@dataclass(frozen=True, slots=True)
class Entrant:
    """One seat of a rated match.

    ``key`` names it in the answer of :func:`rate` (a profile id); ``side`` is the seat,
    or the team in Paare; ``place`` the side's place in the standings (1 is first,
    shared places are ties); ``left``: its player left for good; ``fixed``: a bot or a
    guest, whose rating takes part but is not updated.
    """

    key: Hashable
    skill: Skill
    side: int
    place: int
    left: bool = False
    fixed: bool = False


def ranks_of(entrants: Sequence[Entrant]) -> dict[int, int]:
    """Each side's rank: its place, or below every other side when one of its seats left
    (leavers tie among themselves).

    >>> ranks_of([Entrant("a", start_skill(), 0, 1, left=True), Entrant("b", start_skill(), 1, 2)])
    {0: 3, 1: 2}
    """
    place: dict[int, int] = {}
    left: set[int] = set()
    for e in entrants:
        place[e.side] = e.place
        if e.left:
            left.add(e.side)
    last = max(place.values(), default=0) + 1
    return {side: (last if side in left else p) for side, p in place.items()}


def rate(entrants: Sequence[Entrant]) -> dict[Hashable, Skill]:
    """The new rating of every entrant that is not fixed, by the library's update.

    Nothing changes (an empty answer) when fewer than two sides play or every entrant
    is fixed.
    """
    sides = sorted({e.side for e in entrants})
    if len(sides) < 2 or all(e.fixed for e in entrants):
        return {}
    ranks = ranks_of(entrants)
    members = {s: [e for e in entrants if e.side == s] for s in sides}
    teams = [[MODEL.rating(e.skill.mu, e.skill.sigma) for e in members[s]] for s in sides]
    new = MODEL.rate(teams, ranks=[float(ranks[s]) for s in sides])
    out: dict[Hashable, Skill] = {}
    for s, team in zip(sides, new, strict=True):
        for e, r in zip(members[s], team, strict=True):
            if not e.fixed:
                out[e.key] = Skill(float(r.mu), float(r.sigma))
    return out


def bot_level_for(ratings: Sequence[float]) -> str:
    """The bot level whose fixed rating is closest to the mean of ``ratings`` (shown
    scale; no ratings: the start rating). Ties go to the weaker level.

    >>> bot_level_for([1500.0, 1520.0])
    'fortgeschritten'
    >>> bot_level_for([2100.0])
    'meister'
    """
    mean = sum(ratings) / len(ratings) if ratings else START
    return min(BOT_RATINGS, key=lambda lv: (abs(BOT_RATINGS[lv] - mean), BOT_RATINGS[lv]))
