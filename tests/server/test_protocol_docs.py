"""The protocol's documents stay true: the exported schema and docs/protocol.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

from domino.i18n import CATALOGUES, t
from domino.server import protocol as p

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_exported_schema_is_current() -> None:
    stored = (DOCS / "protocol.schema.json").read_text(encoding="utf-8")
    assert stored == p.schema_text(), (
        "docs/protocol.schema.json is stale: run "
        "`.venv/bin/python -m domino.server.protocol docs/protocol.schema.json`"
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
        "lobby_left",
        "lobby_list",
        "leave_lobby",
        "leave_seat",
        "take_seat",
        "add_bot",
        "remove_bot",
        "set_rules",
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


SRC = Path(__file__).resolve().parents[2] / "src" / "domino"
# Every way the server names an error code it sends: raised errors, REST answers, refusals.
RAISED = re.compile(
    r"\b(?:ProtocolError|LobbyError|PeopleError|CommandError|_error|error_text)\(\s*\"([a-z_]+)\""
    r"|\b_refuse\([^\"]*\"([a-z_]+)\""
)
# Codes built at run time (lobby.py: "bad_" + rule) are listed by hand.
BUILT = {"bad_seats", "bad_turn_seconds"}


def test_every_error_code_the_server_sends_is_documented() -> None:
    docs = (DOCS / "protocol.md").read_text(encoding="utf-8") + (
        DOCS / "match-state.md"
    ).read_text(encoding="utf-8")
    sent: set[str] = set()
    for path in [*(SRC / "server").glob("*.py"), *(SRC / "table").glob("*.py")]:
        for a, b in RAISED.findall(path.read_text(encoding="utf-8")):
            sent.add(a or b)
    sent = (sent - {"bad_"}) | BUILT
    assert {"bad_protocol_version", "hello_first", "bad_message", "stale_version"} <= sent
    missing = sorted(code for code in sent if f"`{code}`" not in docs)
    assert not missing, f"error codes sent but not in docs/protocol.md or match-state.md: {missing}"
