"""Ratings read back (issue 23): a profile's ratings, history and statistics, and the
leaderboard *Rangliste* (one list per pool, paged, the asker's place with neighbours).

Read-only; the ratings are written by a rated match's end
(:func:`domino.server.storage.ratings.rate_match`).
"""

from __future__ import annotations

from typing import Final

from domino.ratings import POOLS
from domino.server import protocol as p
from domino.server.desks.queries import QueryError
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.server.storage.ratings import ACTIVE_DAYS, BOARD_MIN_MATCHES

#: Lines per page of the leaderboard.
BOARD_PAGE: Final = 50
#: The list ends after this many places ("the top 100"); the asker's own place and its
#: neighbours are answered wherever it is.
BOARD_TOP: Final = 100
#: Places shown above and below the asker's own.
NEIGHBOURS: Final = 2


def board_cursor(place: int, rating: int, pid: str) -> str:
    """The ``after`` cursor that continues the list below this line.

    >>> board_cursor(50, 1612, "p_x")
    '50_1612_p_x'
    >>> read_board_cursor(board_cursor(50, 1612, "p_x"))
    (50, 1612, 'p_x')
    """
    return f"{place}_{rating}_{pid}"


def read_board_cursor(text: str) -> tuple[int, int, str]:
    """``(place, rating, profile id)`` of a cursor; :class:`QueryError` if unreadable."""
    place, _, rest = text.partition("_")
    rating, _, pid = rest.partition("_")
    try:
        values = int(place), int(rating)
    except ValueError:
        raise QueryError("bad_cursor", 400) from None
    if not pid or len(pid) > 40 or not 0 < values[0] < BOARD_TOP or abs(values[1]) > 10**6:
        raise QueryError("bad_cursor", 400)
    return values[0], values[1], pid


class Board:
    """The REST answers about ratings."""

    def __init__(self, settings: Settings, db: Database) -> None:
        self.clock = settings.clock
        self.db = db

    async def ratings(self, pid: str) -> p.RatingsOut:
        """A profile's ratings per pool with their history, and its statistics per mode."""
        if await self.db.profile(pid) is None:
            raise QueryError("profile_not_found", 404)
        return p.RatingsOut.model_validate(await self.db.profile_ratings(pid))

    async def leaderboard(self, pool: str, after: str | None, me: str | None) -> p.LeaderboardOut:
        """A page of ``pool``'s list (``after``: a cursor of the previous page), and the
        place of ``me`` (a signed-in asker) with its neighbours when it is listed."""
        if pool not in POOLS:
            raise QueryError("bad_pool", 404)
        now = self.clock.now()
        start = 1
        key: tuple[int, str] | None = None
        if after is not None:
            place, rating, pid = read_board_cursor(after)
            start, key = place + 1, (rating, pid)
        limit = min(BOARD_PAGE, BOARD_TOP - start + 1)
        rows = await self.db.leaderboard(pool, now, limit, key)
        entries = [p.BoardEntryOut(place=start + i, **r) for i, r in enumerate(rows)]
        last = entries[-1] if entries else None
        more = last is not None and len(entries) == limit and last.place < BOARD_TOP
        mine = None
        if me is not None:
            around = await self.db.board_around(pool, now, me, NEIGHBOURS)
            if around is not None:
                first, lines = around
                mine = [p.BoardEntryOut(place=first + i, **r) for i, r in enumerate(lines)]
        return p.LeaderboardOut(
            pool=pool,
            entries=entries,
            next=board_cursor(last.place, last.rating, last.profile) if more and last else None,
            me=mine,
            min_matches=BOARD_MIN_MATCHES,
            active_days=ACTIVE_DAYS,
        )
