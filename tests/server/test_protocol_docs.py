"""The protocol's documents stay true: the exported schema and docs/protocol.md."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

from domino.i18n import CATALOGUES, t
from domino.server import protocol as p
from domino.server.desks.lobby import share_link
from domino.server.protocol.schema import schema_text

from .harness import Harness

DOCS = Path(__file__).resolve().parents[2] / "docs"
SRC = Path(p.__file__).resolve().parents[2]


def test_the_exported_schema_is_current() -> None:
    stored = (DOCS / "protocol.schema.json").read_text(encoding="utf-8")
    assert stored == schema_text(), (
        "docs/protocol.schema.json is stale: run "
        "`.venv/bin/python -m domino.server.protocol.schema docs/protocol.schema.json`"
    )
    assert json.loads(stored)["properties"]["client_message"]["discriminator"]


def test_protocol_md_describes_every_message() -> None:
    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    server_types = {m.model_fields["type"].default for m in p.SERVER_MODELS}
    for kind in sorted(p.CLIENT_TYPES | server_types | {"state"}):
        assert f'"type": "{kind}"' in text, f"docs/protocol.md has no example of {kind!r}"


def test_every_error_code_in_the_docs_has_german_text() -> None:
    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    section = text[text.index("## REST") : text.index("### Running a server for tests")]
    codes = set(re.findall(r"`([a-z]+(?:_[a-z]+)+)`", section))
    skip = {
        "turn_seconds",
        "match_started",
        "earlier_rounds",
        "lobby_left",
        "queue_join",
        "queue_leave",
        "queue_left",
        "lobby_list",
        "leave_lobby",
        "leave_seat",
        "take_seat",
        "add_bot",
        "fill_bots",
        "quick_game",
        "remove_bot",
        "set_rules",
        "set_rated",
        "join_lobby",
        "create_lobby",
        "list_lobbies",
        "leave_match",
        "next_level_xp",
        "level_xp",
        "target_points",
        "can_start",
        "finished_at",
        "started_at",
    }
    missing = [c for c in sorted(codes - skip) if c not in CATALOGUES["de"]]
    assert not missing, f"codes without German text: {missing}"
    assert t("not_host") == "Das darf nur der Gastgeber."


def test_catalogues_have_the_same_keys() -> None:
    assert set(CATALOGUES["de"]) == set(CATALOGUES["en"])


def _json_examples(text: str) -> list[dict[str, Any]]:
    """Every JSON object in a document that starts with ``{"type": "``."""
    text = text.replace("\\|", "|")  # a | inside a Markdown table cell
    found = []
    decoder = json.JSONDecoder()
    for m in re.finditer(r'\{"type": "', text):
        try:
            obj, _ = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        found.append(obj)
    return found


def test_every_documented_client_message_is_taken() -> None:
    # Strict validation must not refuse what the docs show (JSON numbers, flags, null).
    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    examples = [e for e in _json_examples(text) if e["type"] in p.CLIENT_TYPES]
    assert {e["type"] for e in examples} == p.CLIENT_TYPES
    for e in examples:
        p.parse_client(json.dumps(e))  # raises ProtocolError if refused
    # match-state.md shows the socket's form of the seat commands beside the table's.
    state_doc = (DOCS / "match-state.md").read_text(encoding="utf-8")
    socket_form = [
        e for e in _json_examples(state_doc) if e["type"] in p.CLIENT_TYPES and "match" in e
    ]
    assert {e["type"] for e in socket_form} >= {"move", "back", "leave_match"}
    for e in socket_form:
        p.parse_client(json.dumps(e))


def test_the_documented_share_link_is_the_one_the_server_sends() -> None:
    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    links = re.findall(r'"link": "([^"]+)"', text)
    assert links
    for link in links:
        assert link == share_link("http://127.0.0.1:8000", "K7Q2MX9P")


#: Calls that raise or send an error; the code is their first string argument.
_ERROR_CALLS = frozenset(
    {
        "LobbyError",
        "PeopleError",
        "ProtocolError",
        "CommandError",
        "_error",
        "_refuse",
        "error",
        "error_text",
    }
)
#: The engine's refusals a client's command can meet (set_rules, move): code second.
_RULES_ERRORS = frozenset(
    {"InvalidRulesError", "IllegalMoveError", "NotYourTurnError", "RoundOverError"}
)


def _strings(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    return []


def _called(node: ast.Call) -> str | None:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _logs(node: ast.Call) -> bool:
    """A logger's call (``log.error("...")``): its text is a log line, not an error code."""
    f = node.func
    return (
        isinstance(f, ast.Attribute)
        and isinstance(f.value, ast.Name)
        and (f.value.id in ("log", "logger", "logging"))
    )


def sendable_error_codes() -> dict[str, str]:
    """Every error code the server can send, with a file that sends it.

    Read from the source: the server package, the table's command errors, and the
    engine's refusals of rules and moves (its deal and record errors never reach a
    client; the table starts rounds itself).
    """
    codes: dict[str, str] = {}
    files = [*sorted((SRC / "server").rglob("*.py")), SRC / "table" / "table.py"]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            if _called(node) in _ERROR_CALLS and not _logs(node):
                for arg in node.args:
                    if found := _strings(arg):
                        codes.update(dict.fromkeys(found, path.name))
                        break
            if _called(node) == "ErrorMsg":
                for kw in node.keywords:
                    if kw.arg == "code":
                        codes.update(dict.fromkeys(_strings(kw.value), path.name))
    for name in ("config.py", "round.py"):
        path = SRC / "rules" / name
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _called(node) in _RULES_ERRORS and len(node.args) > 1:
                codes.update(dict.fromkeys(_strings(node.args[1]), name))
    return codes


def test_protocol_md_lists_every_error_code_the_server_can_send() -> None:
    codes = sendable_error_codes()
    # The scan finds codes of each kind of sender (so an empty scan cannot pass).
    for known in (
        "bad_protocol_version",  # ws.py, _refuse
        "not_host",  # lobby.py, LobbyError
        "stale_version",  # table.py, CommandError
        "match_over",  # matches.py, self._error(conn, ...)
        "name_taken",  # people.py, PeopleError
        "lang_not_found",  # app.py, _error
        "bad_rules",  # lobby.py, inside a conditional expression
        "pairs_need_four",  # rules/config.py
        "does_not_fit",  # rules/round.py
    ):
        assert known in codes, known
    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    missing = sorted(c for c in codes if f"`{c}`" not in text)
    assert not missing, f"docs/protocol.md does not list {missing} ({[codes[c] for c in missing]})"
    assert not [c for c in codes if c not in CATALOGUES["de"]], "codes without German text"


def test_the_openapi_page_needs_nothing_from_outside(h: Harness) -> None:
    page = h.tc.get("/api/docs")
    assert page.status_code == 200 and "/api/openapi.json" in page.text
    links = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", page.text)
    files = [u for u in links if u.endswith((".js", ".css"))]
    assert len(files) >= 2, links  # Swagger UI's script and style
    for url in links:
        assert not re.match(r"(?:https?:)?//", url), f"the page loads {url} from elsewhere"
    for url in files:
        r = h.tc.get(url)
        assert r.status_code == 200 and len(r.content) > 10_000, url
    assert h.tc.get("/api/openapi.json").json()["paths"]["/api/guest"]
