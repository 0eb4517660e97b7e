"""What the operator's files in deploy/ are checked against: the metric names a real
node serves, and the PromQL names an expression reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from server.cluster.nodes import NEEDS, PG_URL, cluster_prefix, match_on, node, until_turn
from server.harness import answered, latest_state
from server.redis_keys import REDIS_ADMIN

#: The repository's deploy/ folder.
DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
#: Series Prometheus makes itself for every target (not a node's).
PROMETHEUS_OWN = frozenset({"up", "scrape_duration_seconds", "scrape_samples_scraped"})

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_MATCHERS = re.compile(r"\{[^}]*\}")
_RANGE = re.compile(r"\[[^\]]*\]")
_GROUPING = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
_VARIABLE = re.compile(r"\$\{?\w+\}?")
_WORD = re.compile(r"(?<![\w.])[A-Za-z_:][A-Za-z0-9_:]*")
_OPERATORS = frozenset({"and", "or", "unless", "bool", "offset", "inf", "nan", "group_left"})


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads (functions, aggregations, label names,
    ranges and Grafana's ``$variables`` left out).

    >>> sorted(metric_names('sum by (le) (rate(a_bucket{x="y"}[5m])) / b > 0.1 unless on() c'))
    ['a_bucket', 'b', 'c']
    """
    expr = _VARIABLE.sub("", _STRING.sub('""', expr))
    expr = _GROUPING.sub("", _RANGE.sub("", _MATCHERS.sub("", expr)))
    names = set()
    for m in _WORD.finditer(expr):
        if expr[m.end() :].lstrip().startswith("(") or m.group(0) in _OPERATORS:
            continue  # a function or an aggregation, or an operator
        names.add(m.group(0))
    return names


@pytest.fixture(scope="session")
def served_metrics(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """Every sample name a node of a cluster serves on /metrics (histograms as their
    ``_bucket``, ``_sum`` and ``_count``, counters as ``_total``), after a match was
    started and a move played, so that the labelled series exist too."""
    if not (PG_URL and REDIS_ADMIN):
        pytest.skip(NEEDS)
    with cluster_prefix("dp") as prefix:
        h = node(tmp_path_factory.mktemp("node"), prefix, "n1")
        try:
            anna, st = match_on(h)
            until_turn(h, st["match_id"], st["you"])
            anna.drain()
            now = latest_state(anna)
            assert now is not None and now["view"]["legal"]
            move = now["view"]["legal"][0]
            anna.send({"type": "move", "match": now["match_id"], "move": move, "v": now["v"]})
            anna.recv_until(answered(now["v"]))
            text = h.tc.get("/metrics").text
        finally:
            h.close()
    return {s.name for family in text_string_to_metric_families(text) for s in family.samples}


def unknown(names: set[str], served: set[str]) -> set[str]:
    """The names no node serves (nor Prometheus itself)."""
    return names - served - PROMETHEUS_OWN


__all__ = ["DEPLOY", "metric_names", "unknown"]
