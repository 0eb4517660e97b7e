"""deploy/prometheus/domino-alerts.yml: valid for ``promtool check rules`` (Debian's
prometheus package; ``make deploy-tools`` installs it), each alert fires on the series it
is about and a deploy's takeovers do not (``promtool test rules`` with
domino-alerts.test.yml beside this file), and every metric the rules read is one a node
serves."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from .conftest import DEPLOY, metric_names, unknown

RULES = DEPLOY / "prometheus" / "domino-alerts.yml"
RULE_TESTS = Path(__file__).with_name("domino-alerts.test.yml")
#: What the issue asks the alerts to watch (issue 25).
ALERTS = {
    "DominoNodeDown",
    "DominoLeaseTakeovers",
    "DominoCommandsSlow",
    "DominoAppendsFailing",
    "DominoRedisAway",
    "DominoQueueDrops",
}


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        pytest.skip("needs promtool: make deploy-tools installs Debian's prometheus package")
    return found


def rules() -> list[dict[str, str]]:
    doc = yaml.safe_load(RULES.read_text(encoding="utf-8"))
    return [rule for group in doc["groups"] for rule in group["rules"]]


def test_promtool_checks_the_rules() -> None:
    done = subprocess.run(
        [promtool(), "check", "rules", str(RULES)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert {rule["alert"] for rule in rules()} >= ALERTS


def test_each_alert_fires_on_what_it_watches() -> None:
    done = subprocess.run(
        [promtool(), "test", "rules", RULE_TESTS.name],
        cwd=RULE_TESTS.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    tested = yaml.safe_load(RULE_TESTS.read_text(encoding="utf-8"))
    fired = {
        case["alertname"]
        for test in tested["tests"]
        for case in test["alert_rule_test"]
        if case["exp_alerts"]
    }
    assert fired >= ALERTS


def test_every_metric_the_rules_read_is_served_by_a_node(served_metrics: set[str]) -> None:
    for rule in rules():
        assert not unknown(metric_names(rule["expr"]), served_metrics), rule["alert"]


def test_metric_names_are_read_out_of_promql() -> None:
    expr = (
        'histogram_quantile(0.99, sum by (le) (rate(a_bucket{job="d", x=~"$i"}[5m]))) > 0.1'
        " unless on() max(max_over_time(b{y='z'}[10m])) / c_total offset 5m"
    )
    assert metric_names(expr) == {"a_bucket", "b", "c_total"}
