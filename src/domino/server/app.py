"""The FastAPI application: REST under ``/api``, the socket at ``/ws``, the client at ``/``."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi_offline import FastAPIOffline
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

import domino
from domino.i18n import LANGS, client_catalogue, t
from domino.rules.record import dumps as record_dumps
from domino.server import protocol as p
from domino.server.clock import Clock
from domino.server.desks.analysis import AnalysisError
from domino.server.desks.lobby import LobbyError, normalize_code
from domino.server.desks.people import PeopleError, profile_out
from domino.server.desks.puzzles import PuzzleError
from domino.server.desks.queries import QueryError
from domino.server.metrics import CONTENT_TYPE, serve_metrics
from domino.server.puzzleroutes import puzzle_routes
from domino.server.service import Service
from domino.server.settings import Settings
from domino.server.storage.outage import AWAY_TYPES, DATABASE_UNAVAILABLE, database_away
from domino.server.transport.assets import TYPES, Blob, WebAssets, answer
from domino.server.transport.ws import TokenBucket, websocket_endpoint

WEB_DIR = Path(domino.__file__).parent / "web"

log = logging.getLogger("domino.server")

#: Seconds a client is told to wait before trying again (503 while the database is away).
RETRY_AFTER = "2"


def _error(code: str, status: int, /, **params: Any) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": t(code, **params)}}, status_code=status)


def _cut(text: str | None) -> str | None:
    """A query parameter cut to a sane length (a cursor is short)."""
    return None if text is None else text[:100]


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


class AddressLimit:
    """A token bucket per client address (sign-ins: guests, accounts, logins).

    Forgotten once full again, so the table holds only addresses active lately.
    """

    def __init__(self, settings: Settings, clock: Clock) -> None:
        self.burst = settings.signin_burst
        self.rate = settings.signin_rate
        self.clock = clock
        self.buckets: dict[str, TokenBucket] = {}

    def take(self, address: str) -> bool:
        """Spend one sign-in for ``address``; ``False`` when its budget is used up."""
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) >= PRUNE_AT:
                self._prune()
            bucket = self.buckets[address] = TokenBucket(self.clock, self.burst, self.rate)
        return bucket.take()

    def _prune(self) -> None:
        now = self.clock.now()
        full = [a for a, b in self.buckets.items() if b.tokens + (now - b.last) * b.rate >= b.burst]
        for a in full:
            del self.buckets[a]
        if len(self.buckets) >= PRUNE_AT:
            # Many addresses, all still spending: forget the older half rather than
            # scanning them all again for each new one.
            for a in list(self.buckets)[: len(self.buckets) // 2]:
                del self.buckets[a]


#: Addresses remembered before the full ones are forgotten.
PRUNE_AT = 10_000


class _SocketRoute:
    """ASGI middleware: ``/ws`` to :func:`websocket_endpoint`, everything else on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and scope["path"] == "/ws":
            await websocket_endpoint(WebSocket(scope, receive, send))
            return
        await self.app(scope, receive, send)


def create_app(settings: Settings | None = None) -> FastAPI:
    """A complete server: call with :class:`Settings`, run with uvicorn."""
    settings = settings or Settings()
    service = Service(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        keeper = None
        if settings.gc_policy is not None:
            keeper = asyncio.create_task(settings.gc_policy.keep())
        listener = None
        if settings.metrics_listen:
            host, port = settings.metrics_address
            listener = await serve_metrics(
                host, port, service.metrics.render, settings.metrics_token
            )
        try:
            yield
        finally:
            if keeper is not None:
                keeper.cancel()
            if listener is not None:
                listener.close()
            await service.stop()

    # The OpenAPI page with Swagger UI's files served by the node itself (fastapi-offline
    # bundles them): no CDN, so it works offline and tells no third party who reads it.
    app = FastAPIOffline(
        title="Domino",
        version=str(p.PROTOCOL_VERSION),
        lifespan=lifespan,
        docs_url="/api/docs",
        openapi_url="/api/openapi.json",
        redoc_url=None,
        static_url="/api/docs-files",
    )
    app.state.service = service
    app.state.settings = settings

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if not errors:  # pragma: no cover - FastAPI always names one
            return _error("bad_message", 422, detail=t("detail.not_object"))
        first = errors[0]
        # The models bound names and passwords (200, 1000 characters) only so that no
        # huge string reaches the checks; what they refuse gets the checks' own answer.
        if first.get("type") == "string_too_long" and tuple(first.get("loc", ())) in (
            ("body", "name"),
            ("body", "password"),
        ):
            if request.url.path == "/api/login":
                return _error("login_failed", 401)
            if first["loc"][1] == "name":
                return _error("name_too_long", 400, limit=settings.name_max)
            return _error("password_too_long", 400, limit=settings.password_max)
        return _error("bad_message", 422, detail=p.error_detail(first, skip=1))

    @app.exception_handler(PeopleError)
    async def _people(_req: Request, exc: PeopleError) -> JSONResponse:
        return _error(exc.code, exc.status, **exc.params)

    @app.exception_handler(QueryError)
    async def _query(_req: Request, exc: QueryError) -> JSONResponse:
        return _error(exc.code, exc.status)

    @app.exception_handler(AnalysisError)
    async def _analysis(_req: Request, exc: AnalysisError) -> JSONResponse:
        return _error(exc.code, exc.status)

    @app.exception_handler(PuzzleError)
    async def _puzzle(_req: Request, exc: PuzzleError) -> JSONResponse:
        return _error(exc.code, exc.status, **exc.params)

    app.include_router(puzzle_routes(service.puzzles, service.people.resolve))

    async def _database_away(request: Request, exc: Exception) -> JSONResponse:
        # Every route that reads or writes meets the database's connection errors here:
        # 503 with the German error (docs/protocol.md), not a plain-text 500.
        if not database_away(exc):
            raise exc
        log.warning(
            "%s %s: database away: %r",
            request.method,
            request.url.path,
            exc,
            extra={"event": "database_away"},
        )
        out = _error(DATABASE_UNAVAILABLE, 503)
        out.headers["retry-after"] = RETRY_AFTER
        return out

    for away in AWAY_TYPES:
        app.add_exception_handler(away, _database_away)

    async def _me(request: Request) -> str:
        token = _bearer(request)
        if token is None:
            raise PeopleError("auth_required", 401)
        pid = await service.people.resolve(token)
        if pid is None:
            raise PeopleError("bad_token", 401)
        return pid

    signins = AddressLimit(settings, service.clock)

    def _signin_budget(request: Request) -> None:
        address = request.client.host if request.client else "?"
        if not signins.take(address):
            raise PeopleError("too_many_signins", 429)

    @app.post("/api/guest", status_code=201, response_model=p.AuthOut)
    async def guest(body: p.GuestIn, request: Request) -> p.AuthOut:
        """*Als Gast spielen*: a name makes a guest profile and its token."""
        _signin_budget(request)
        token, row = await service.people.guest(body.name)
        return p.AuthOut(token=token, profile=profile_out(row))

    @app.post("/api/account", status_code=201, response_model=p.AuthOut)
    async def account(body: p.AccountIn, request: Request) -> p.AuthOut:
        """Make an account; a guest's token turns that guest into it."""
        _signin_budget(request)
        current = await _me(request) if _bearer(request) else None
        token, row = await service.people.account(body.name, body.password, current)
        return p.AuthOut(token=token or _bearer(request) or "", profile=profile_out(row))

    @app.post("/api/login", response_model=p.AuthOut)
    async def login(body: p.AccountIn, request: Request) -> p.AuthOut:
        """Sign in to an account: a new token."""
        _signin_budget(request)
        token, row = await service.people.login(body.name, body.password)
        return p.AuthOut(token=token, profile=profile_out(row))

    @app.post("/api/logout", status_code=204)
    async def logout(request: Request) -> Response:
        """Void the token."""
        await _me(request)
        token = _bearer(request)
        assert token is not None
        await service.people.logout(token)
        return Response(status_code=204)

    @app.get("/api/me", response_model=p.ProfilePageOut)
    async def me(
        request: Request, before: str | None = None, limit: int | None = None
    ) -> p.ProfilePageOut | JSONResponse:
        """The signed-in profile with its matches, newest first, a page at a time."""
        page = await service.profile_page(await _me(request), _cut(before), limit)
        return page if page is not None else _error("profile_not_found", 404)

    @app.get("/api/me/players", response_model=p.RecentPlayersOut)
    async def recent_players(request: Request) -> p.RecentPlayersOut:
        """*Zuletzt gespielt mit*: the humans the signed-in profile played with lately."""
        return await service.invites.recent(await _me(request))

    @app.post("/api/me/name", response_model=p.ProfileOut)
    async def rename(body: p.RenameIn, request: Request) -> p.ProfileOut:
        """*Name ändern*: the signed-in profile gets a new name (its sockets on every node
        get the new profile; its lobby and the match it plays show it at once, lobbies
        and matches joined from now on too)."""
        pid = await _me(request)
        row = await service.people.rename(pid, body.name)
        await service.connections.renamed(row)
        return profile_out(row)

    @app.get("/api/profiles/{pid}", response_model=p.ProfilePageOut)
    async def profile(
        pid: str, before: str | None = None, limit: int | None = None
    ) -> p.ProfilePageOut | JSONResponse:
        """Anyone's public profile with its matches, newest first, a page at a time."""
        page = await service.profile_page(pid[:40], _cut(before), limit)
        return page if page is not None else _error("profile_not_found", 404)

    @app.get("/api/profiles/{pid}/ratings", response_model=p.RatingsOut)
    async def ratings(pid: str) -> p.RatingsOut:
        """A profile's rating per pool with its history, and its rated matches' statistics
        per mode (issue 23)."""
        return await service.board.ratings(pid[:40])

    @app.get("/api/leaderboard/{pool}", response_model=p.LeaderboardOut)
    async def leaderboard(
        pool: str, request: Request, after: str | None = None
    ) -> p.LeaderboardOut:
        """*Rangliste*: a page of the pool's list (``2``, ``3``, ``4``, ``paare``), and the
        signed-in asker's place with its neighbours."""
        me = await _me(request) if _bearer(request) else None
        return await service.board.leaderboard(pool[:16], _cut(after), me)

    @app.get("/api/lobbies", response_model=p.LobbyListMsg)
    async def lobbies() -> p.LobbyListMsg:
        """Open lobbies and running matches."""
        return await service.lobby_list()

    @app.get("/api/lobbies/{code}", response_model=p.LobbyOut)
    async def lobby(code: str) -> p.LobbyOut | JSONResponse:
        """One lobby by its code."""
        out = await service.lobby_out(code[:32])
        return out if out is not None else _error("lobby_not_found", 404, code=code[:32])

    @app.get("/api/matches/{mid}", response_model=p.MatchOut)
    async def match(mid: str) -> p.MatchOut | JSONResponse:
        """A match summary; its record once it is over."""
        out = await service.match_out(mid[:40])
        return out if out is not None else _error("match_not_found", 404)

    @app.get("/api/matches/{mid}/replay")
    async def replay(mid: str, request: Request) -> JSONResponse:
        """A finished match step by step, every hand face up, and its score sheet; its
        chat without the messages of anyone in a block with the signed-in viewer."""
        viewer = await _me(request) if _bearer(request) else None
        return JSONResponse(await service.queries.replay(mid[:40], viewer))

    @app.get("/api/matches/{mid}/record")
    async def record_file(mid: str) -> Response:
        """A finished match's game record as a file (``domino replay FILE`` reads it)."""
        mid = mid[:40]
        record = await service.queries.finished_record(mid)
        safe = "".join(c for c in mid if c.isalnum() or c in "_-")
        return Response(
            record_dumps(record) + "\n",
            media_type="application/json",
            headers={"content-disposition": f'attachment; filename="domino-{safe}.json"'},
        )

    @app.get("/api/matches/{mid}/analysis")
    async def analysis(mid: str) -> Response:
        """Meister's judgement of every human move: 200 when ready, 202 with progress."""
        status, body = await service.analyses.get(mid[:40])
        if isinstance(body, str):  # the stored document, sent as stored
            return Response(body, media_type="application/json", status_code=status)
        return JSONResponse(body, status_code=status)

    # The catalogues, serialized and gzipped once; the page names their versions, so a
    # request with the current ``v`` may be cached for good (server/transport/assets.py).
    catalogues = {
        lang: Blob.of(
            json.dumps(client_catalogue(lang), ensure_ascii=False, separators=(",", ":")).encode(
                "utf-8"
            ),
            TYPES[".json"],
        )
        for lang in LANGS
    }

    @app.get("/api/i18n/{lang}")
    async def i18n(lang: str, request: Request, v: str = "") -> Response:
        """The text catalogue of a language, with its plural forms (domino.i18n)."""
        blob = catalogues.get(lang)
        if blob is None:
            return _error("lang_not_found", 404)
        status, headers, body = answer(
            request.headers, request.method, blob, immutable=v == blob.version
        )
        out = Response(body, status_code=status)
        out.raw_headers = headers
        return out

    @app.get("/api/health")
    async def health() -> JSONResponse:
        """Whether this node serves (200), or drains or cannot reach a dependency (503).

        The balancer's health check reads the status: a draining node (SIGTERM) is
        taken out of the rotation while its sockets stay open (docs/deploy.md); so is
        a node that cannot reach its database (or, in a cluster, Redis), until it can.
        """
        down = await service.down()
        accepting = not service.draining and not down
        body: dict[str, Any] = {
            "ok": not down,
            "protocol": p.PROTOCOL_VERSION,
            "node": service.node,
            "accepting": accepting,
            "down": down,
        }
        if down:
            code = DATABASE_UNAVAILABLE if "database" in down else "cluster_unavailable"
            body["error"] = {"code": code, "message": t(code)}
        return JSONResponse(body, status_code=200 if accepting else 503)

    @app.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        """The node's metrics in Prometheus' text format (server/metrics.py); not here
        when they have an address of their own (``--metrics-listen``), and only with the
        token when one is set (``--metrics-token``)."""
        if settings.metrics_listen:
            return Response(status_code=404)
        if settings.metrics_token is not None and not secrets.compare_digest(
            (_bearer(request) or "").encode(), settings.metrics_token.encode()
        ):
            return _error("metrics_token", 401)
        return Response(service.metrics.render(), media_type=CONTENT_TYPE)

    @app.get("/l/{code}")
    async def share(code: str) -> Response:
        """The short share link: into the client's lobby route."""
        try:
            canonical = normalize_code(code)
        except LobbyError:
            return _error("lobby_bad_code", 404)
        return RedirectResponse(f"/#/lobby/{canonical}", status_code=307)

    # The socket goes straight to its endpoint, past routing, exception middleware and
    # dependency solving: each of those layers keeps a coroutine (and more) alive for as
    # long as a socket is open, which the collector scans and memory holds per client.
    app.add_middleware(_SocketRoute)

    web = settings.web_dir or WEB_DIR
    if web.is_dir():
        versions = {lang: blob.version for lang, blob in catalogues.items()}
        app.mount("/", WebAssets(web, versions), name="web")
    return app
