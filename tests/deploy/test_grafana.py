"""deploy/grafana/domino.json: a dashboard Grafana imports (its datasource a variable),
whose every expression reads metrics a real node serves."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from .conftest import DEPLOY, metric_names, unknown

DASHBOARD = DEPLOY / "grafana" / "domino.json"
_LABEL_VALUES = re.compile(r"label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*)")


def dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return loaded


def panels(items: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for panel in items:
        yield panel
        yield from panels(panel.get("panels", []))


def expressions() -> Iterator[tuple[str, str]]:
    """(where, PromQL) for every query of the dashboard."""
    for panel in panels(dashboard()["panels"]):
        for target in panel.get("targets", []):
            yield panel["title"], target["expr"]


def test_the_dashboard_is_one_grafana_imports() -> None:
    d = dashboard()
    assert d["uid"] == "domino" and d["title"] == "Domino"
    variables = {v["name"]: v for v in d["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    ids = [p["id"] for p in panels(d["panels"])]
    assert len(ids) == len(set(ids))
    for panel in panels(d["panels"]):
        if panel["type"] != "row":
            assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
            assert panel["targets"], panel["title"]
    # The figures the issue asks to see are there.
    used = set().union(*(metric_names(e) for _, e in expressions()))
    for name in (
        "domino_sockets",
        "domino_commands_total",
        "domino_command_seconds_bucket",
        "domino_append_seconds_bucket",
        "domino_lease_takeovers_total",
        "domino_redis_up",
        "domino_router_dropped_total",
        "process_cpu_seconds_total",
    ):
        assert name in used, name


def test_every_metric_the_dashboard_reads_is_served_by_a_node(served_metrics: set[str]) -> None:
    for where, expr in expressions():
        assert not unknown(metric_names(expr), served_metrics), (where, expr)
    for variable in dashboard()["templating"]["list"]:
        query = variable.get("definition") or ""
        for name in _LABEL_VALUES.findall(query):
            assert name in served_metrics, variable["name"]
