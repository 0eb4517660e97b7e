"""RULES.md §1: the double-six set, notation, pips, doubles."""

import pytest

from domino.rules import TILES, InvalidTileError, Tile


def test_s1_set_has_28_distinct_tiles() -> None:
    assert len(TILES) == 28
    assert len({(t.low, t.high) for t in TILES}) == 28


def test_s1_notation_round_trips_and_half_order_is_free() -> None:
    for t in TILES:
        assert Tile.parse(str(t)) is t
        assert Tile.parse(f"{t.low}|{t.high}") is t


def test_s1_pips_and_doubles() -> None:
    assert Tile.parse("6|2").pips == 8
    assert Tile.parse("4|4").is_double
    assert not Tile.parse("4|3").is_double


@pytest.mark.parametrize("text", ["7|1", "x", "6|", "6|2|1", "-1|2", ""])
def test_s1_malformed_tiles_are_refused(text: str) -> None:
    with pytest.raises(InvalidTileError):
        Tile.parse(text)
