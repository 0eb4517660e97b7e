"""The protocol's JSON schema (docs/protocol.schema.json, checked by a test)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic.json_schema import models_json_schema

from domino.server.protocol.client import _CLIENT, PROTOCOL_VERSION
from domino.server.protocol.server import REST_MODELS, SERVER_MODELS


def schema() -> dict[str, Any]:
    """The JSON schema of every message and REST body (docs/protocol.schema.json)."""
    client = _CLIENT.json_schema()
    _, defs = models_json_schema(
        [(m, "serialization") for m in (*SERVER_MODELS, *REST_MODELS)],
        ref_template="#/$defs/{model}",
    )
    all_defs = {**client.pop("$defs", {}), **defs.get("$defs", {})}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Domino protocol v{PROTOCOL_VERSION}",
        "description": "Generated from domino.server.protocol; see docs/protocol.md.",
        "$defs": dict(sorted(all_defs.items())),
        "properties": {
            "client_message": client,
            "server_message": {"oneOf": [{"$ref": f"#/$defs/{m.__name__}"} for m in SERVER_MODELS]},
        },
    }


def schema_text() -> str:
    """The schema as the file holds it."""
    return json.dumps(schema(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def write_schema(path: Path) -> None:
    """Write the schema file (``python -m domino.server.protocol.schema PATH``)."""
    path.write_text(schema_text(), encoding="utf-8")


if __name__ == "__main__":
    write_schema(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/protocol.schema.json"))
