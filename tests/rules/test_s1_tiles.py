"""RULES.md §1: the double-six set, notation, pips, doubles."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


def test_s1_every_pair_a_le_b_from_0_to_6_exactly_once() -> None:
    assert sorted((t.low, t.high) for t in TILES) == [(a, b) for a in range(7) for b in range(a, 7)]


def test_s1_tiles_are_interned_whatever_the_half_order() -> None:
    for a in range(7):
        for b in range(7):
            assert Tile.of(a, b) is Tile.of(b, a)
            assert Tile.parse(f" {a} | {b} ") is Tile.of(a, b)


def test_s1_pips_are_the_sum_of_halves_and_the_set_holds_168() -> None:
    assert all(t.pips == t.low + t.high for t in TILES)
    assert sum(t.pips for t in TILES) == 168


def test_s1_a_pasch_has_equal_halves_and_there_are_seven() -> None:
    doubles = [t for t in TILES if t.is_double]
    assert [str(t) for t in doubles] == [f"{n}|{n}" for n in range(7)]
    assert all(t.low == t.high for t in doubles)


def test_s1_notation_prints_the_high_half_first() -> None:
    assert str(Tile.parse("2|6")) == "6|2"
    assert str(Tile.of(0, 5)) == "5|0"
    assert [str(t) for t in TILES[:3]] == ["0|0", "1|0", "2|0"]


def test_s1_repr_pastes_back_and_tiles_pickle_to_themselves() -> None:
    import pickle

    for t in TILES:
        assert eval(repr(t), {"Tile": Tile}) is t
        assert pickle.loads(pickle.dumps(t)) is t


def test_s1_has_and_other_half() -> None:
    t = Tile.parse("6|2")
    assert t.has(6) and t.has(2) and not t.has(3)
    assert t.other(6) == 2 and t.other(2) == 6
    assert Tile.parse("4|4").other(4) == 4


def test_s1_bitmasks_round_trip() -> None:
    from domino.rules.tiles import WITH, mask_of, pips_of, tiles_of

    assert tiles_of(mask_of(TILES)) == TILES
    assert pips_of(mask_of(TILES)) == 168
    for n in range(7):
        assert {t for t in tiles_of(WITH[n])} == {t for t in TILES if t.has(n)}
        assert len(tiles_of(WITH[n])) == 7


@pytest.mark.parametrize("a,b", [(7, 1), (-1, 0), (0, 7)])
def test_s1_halves_outside_0_to_6_are_refused(a: int, b: int) -> None:
    with pytest.raises(InvalidTileError, match="not a tile"):
        Tile.of(a, b)


def test_s1_non_text_is_refused_as_a_tile() -> None:
    with pytest.raises(InvalidTileError):
        Tile.parse(62)  # type: ignore[arg-type]


def test_s1_tile_errors_are_rules_errors_with_a_code() -> None:
    from domino.rules import RulesError

    with pytest.raises(RulesError) as info:
        Tile.parse("9|9")
    assert info.value.code == "invalid_tile"


@pytest.mark.parametrize(
    "text", ["²|4", "٦|٢", "６|2", "6|²", "+1|2", "1_0|2", "06|2", "6 6|2", "\u00a06|2"]
)
def test_s1_only_ascii_digits_name_a_half(text: str) -> None:
    # Python calls "²" and "٦" digits; a tile is written with 0-6 only.
    with pytest.raises(InvalidTileError):
        Tile.parse(text)


@given(st.text(max_size=12))
def test_s1_any_text_is_a_tile_or_a_clear_refusal(text: str) -> None:
    try:
        tile = Tile.parse(text)
    except InvalidTileError as exc:
        assert str(exc)
    else:
        assert tile is Tile.parse(f"{tile.high}|{tile.low}")
        assert set(text) <= set("0123456| \t\r\n")
