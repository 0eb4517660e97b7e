"""The puzzles' REST endpoints under ``/api/puzzles`` (docs/protocol.md, "Puzzles").

Anyone may see and answer a puzzle; a signed-in account's first answer to each puzzle
moves its puzzle rating, and its answer to the day's puzzle its streak.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from domino.server.desks.people import PeopleError
from domino.server.desks.puzzles import PuzzleDesk

__all__ = ["AnswerIn", "puzzle_routes"]


class AnswerIn(BaseModel):
    """An answer to a puzzle: the move, as the table writes it (``6|2 L``, ``D``, ``P``)."""

    model_config = ConfigDict(extra="forbid")
    move: str = Field(max_length=40)


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def puzzle_routes(desk: PuzzleDesk, resolve: Any) -> APIRouter:
    """The router; ``resolve(token)`` gives the profile id of a token (``None``: none)."""
    router = APIRouter(prefix="/api/puzzles")

    async def who(request: Request, required: bool = False) -> str | None:
        token = _bearer(request)
        if token is None:
            if required:
                raise PeopleError("auth_required", 401)
            return None
        pid: str | None = await resolve(token)
        if pid is None:
            raise PeopleError("bad_token", 401)
        return pid

    @router.get("/daily")
    async def daily(request: Request) -> dict[str, Any]:
        """The puzzle of the day (UTC) for everyone; an account's rating and streak."""
        return await desk.daily(await who(request))

    @router.get("/next")
    async def next_puzzle(request: Request) -> dict[str, Any]:
        """A puzzle the account has not answered, near its rating (anyone: any)."""
        return await desk.next(await who(request))

    @router.get("/mine")
    async def mine(request: Request) -> dict[str, Any]:
        """*Deine Fehler*: the puzzles made from the signed-in player's own Patzer."""
        profile = await who(request, required=True)
        assert profile is not None
        return {"puzzles": await desk.mine(profile), "me": await desk.me(profile)}

    @router.get("/{pid}")
    async def one(pid: str) -> dict[str, Any]:
        """One puzzle: the position as its seat saw it (no options before an answer)."""
        return await desk.get(pid[:80])

    @router.post("/{pid}/answer")
    async def answer(pid: str, body: AnswerIn, request: Request) -> dict[str, Any]:
        """Answer: every option's expected points, Meister's move, the reason; an
        account's first answer moves its rating."""
        return await desk.answer(pid[:80], body.move, await who(request))

    return router
