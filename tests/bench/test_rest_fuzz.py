"""The REST API fuzzed from its own OpenAPI document (schemathesis): never a 5xx.

Every operation of ``/api/openapi.json`` gets cases generated from its schema
(valid and invalid: schemathesis mixes both) and sent over a real socket to
the server process; every answer must be below 500 and the server must stay up.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings

from domino_bench.launcher import ServerProcess

EXAMPLES_PER_OPERATION = 40


def test_rest_api_never_answers_5xx(server: ServerProcess) -> None:
    """Generated requests to every operation: 2xx/3xx/4xx only, and the server stays up."""
    schema = schemathesis.openapi.from_url(server.url + "/api/openapi.json")
    operations: list[Any] = [op.ok() for op in schema.get_all_operations()]  # type: ignore[union-attr]
    assert len(operations) >= 10  # the whole API, not an empty document
    seen: dict[str, set[int]] = {}

    def fuzz_operation(op: Any) -> None:
        @given(case=op.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def fuzz(case: Any) -> None:
            response = case.call(base_url=server.url, timeout=10)
            seen.setdefault(op.label, set()).add(response.status_code)
            assert response.status_code < 500, (case.as_curl_command(), response.text[:500])

        fuzz()

    for op in operations:
        fuzz_operation(op)
    assert server.alive()
    assert set(seen) == {op.label for op in operations}
