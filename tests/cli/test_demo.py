"""``domino demo`` plays a whole match of bots to the standings."""

import pytest

from domino.cli import main


def test_demo_plays_a_whole_match_to_the_standings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--delay", "0", "--seed", "5", "--seats", "3"]) == 0
    out = capsys.readouterr().out
    assert "Round 1:" in out
    assert "Standings:" in out
    assert out.count("Domino!") + out.count("Blockiert") >= 1


def test_demo_refuses_an_unknown_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--delay", "0", "--levels", "grossmeister"]) == 2
    assert "unknown level" in capsys.readouterr().err
