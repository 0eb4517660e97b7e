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
