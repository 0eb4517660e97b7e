"""The game server: FastAPI app, WebSocket protocol, lobbies, people, persistence.

``create_app(Settings(...))`` builds the application; ``domino serve`` runs it
on uvicorn. See docs/protocol.md and docs/architecture.md.
"""

from domino.server.app import create_app
from domino.server.clock import Clock, FakeClock, SystemClock
from domino.server.gcpolicy import GcPolicy
from domino.server.settings import Settings

__all__ = ["Clock", "FakeClock", "GcPolicy", "Settings", "SystemClock", "create_app"]
