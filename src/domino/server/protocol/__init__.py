"""The protocol's messages (version 1), defined once as pydantic models.

Client → server messages are parsed with :func:`parse_client`; the server's
own messages are built from the ``*Out`` models, so docs/protocol.schema.json
(written by :func:`write_schema`, checked by a test) describes exactly what
goes over the wire. Table snapshots (``state``) are built by
``domino.table`` and documented in docs/match-state.md.

Semantic checks (a seat number out of range, an unknown bot level) happen in
the handlers, which answer with a specific German error; the models only
bound sizes and types. Client messages and REST bodies are validated in
pydantic's strict mode: ``"v": "1"`` or ``"lager": "yes"`` are refused
(``bad_message``) rather than coerced, so the schema says exactly what is
taken. JSON numbers stay numbers: an ``int`` field takes ``17``, not ``17.0``.
"""

from domino.server.protocol.client import *  # noqa: F403
from domino.server.protocol.server import *  # noqa: F403
from domino.server.protocol.talk import *  # noqa: F403
