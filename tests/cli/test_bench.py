"""``domino bench engine`` runs and reports rates (figures are not asserted); without the
checkout's bench/ the other subcommands say where they are."""

import pytest

from domino.cli import bench, main
from domino.i18n import t


def test_bench_engine_reports_each_workload(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--seconds", "0.02", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "domino api" in out and "domino kernel" in out
    assert "fuenferfieber 4 Paare" in out


def test_bench_from_a_checkout_has_every_documented_subcommand() -> None:
    commands = bench.bench_commands()
    assert commands is not None and commands.__name__ == "domino_bench.commands"
    for name in bench.ELSEWHERE:
        with pytest.raises(SystemExit) as e:
            main(["bench", name, "--help"])
        assert e.value.code == 0, name


def test_bench_without_the_checkout_says_where_the_benchmarks_are(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bench, "bench_commands", lambda: None)  # as in an installed wheel
    assert main(["bench", "server", "--steps", "200", "--flood"]) == 2
    err = capsys.readouterr().err
    assert err == t("bench_elsewhere", command="server") + "\n"
    assert main(["bench", "engine", "--seconds", "0.02", "--repeats", "1", "--skip-modes"]) == 0
