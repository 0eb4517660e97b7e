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


#: Seconds a built board is answered from before it is built again (the leaderboard lags
#: the ratings by at most this long).
BOARD_EVERY: Final = 60.0


def read_board_cursor(text: str) -> int:
    """The last place of the page before (the ``after`` cursor); :class:`QueryError` if
    unreadable.

    >>> read_board_cursor("50")
    50
    """
    if not (text.isascii() and text.isdigit() and len(text) <= 3) or not 0 < int(text) < BOARD_TOP:
        raise QueryError("bad_cursor", 400)
    return int(text)


class Board:
    """The REST answers about ratings."""

    def __init__(self, settings: Settings, db: Database) -> None:
        self.clock = settings.clock
        self.db = db
        #: when each pool's board was built, as last seen here: a board only gets newer,
        #: so until that time plus BOARD_EVERY it need not be asked again
        self._built: dict[str, float] = {}

    async def ratings(self, pid: str) -> p.RatingsOut:
        """A profile's ratings per pool with their history, and its statistics per mode."""
        if await self.db.profile(pid) is None:
            raise QueryError("profile_not_found", 404)
        return p.RatingsOut.model_validate(await self.db.profile_ratings(pid))

    async def leaderboard(self, pool: str, after: str | None, me: str | None) -> p.LeaderboardOut:
        """A page of ``pool``'s list (``after``: a cursor of the previous page), and the
        place of ``me`` (a signed-in asker) with its neighbours when it is listed. The
        board is built first when it is older than :data:`BOARD_EVERY` (one request a
        minute per pool waits for that; on every node the same build counts)."""
        if pool not in POOLS:
            raise QueryError("bad_pool", 404)
        first = 1 if after is None else read_board_cursor(after) + 1
        now = self.clock.now()
        if self._built.get(pool, 0.0) <= now - BOARD_EVERY:
            built = await self.db.board_built(pool)
            if built == 0 or built <= now - BOARD_EVERY:
                await self.db.build_board(pool, now, BOARD_EVERY)
                built = await self.db.board_built(pool)
            self._built[pool] = built
        limit = min(BOARD_PAGE, BOARD_TOP - first + 1)
        entries = [p.BoardEntryOut(**r) for r in await self.db.board_page(pool, first, limit)]
        last = entries[-1].place if entries else 0
        mine = None
        if me is not None:
            around = await self.db.board_around(pool, me, NEIGHBOURS)
            mine = [p.BoardEntryOut(**r) for r in around] or None
        return p.LeaderboardOut(
            pool=pool,
            entries=entries,
            next=str(last) if len(entries) == limit and last < BOARD_TOP else None,
            me=mine,
            min_matches=BOARD_MIN_MATCHES,
            active_days=ACTIVE_DAYS,
        )
