"""RULES.md §3: the six host rules, the four mode presets, Automatisch targets."""

from __future__ import annotations

import itertools

import pytest

from domino.rules import InvalidRulesError, Mode, Rules


def test_s3_defaults_are_klassisch_automatisch_20s_lager_on_fives_off_no_pairs() -> None:
    r = Rules()
    assert (r.mode, r.target, r.turn_seconds, r.lager, r.fives, r.pairs) == (
        Mode.KLASSISCH,
        None,
        20,
        True,
        False,
        False,
    )
    assert r == Rules.preset(Mode.KLASSISCH)


@pytest.mark.parametrize(
    "mode,target,seconds,lager,fives",
    [
        ("klassisch", None, 20, True, False),
        ("blitz", 30, 12, True, False),
        ("zugemauert", None, 20, False, False),
        ("fuenferfieber", 100, 20, True, True),
    ],
)
def test_s3_modus_presets_the_other_rules(
    mode: str, target: int | None, seconds: int, lager: bool, fives: bool
) -> None:
    for seats in (2, 3, 4):
        r = Rules.preset(mode, seats)
        assert (r.mode.value, r.target, r.turn_seconds, r.lager, r.fives) == (
            mode,
            target,
            seconds,
            lager,
            fives,
        )
        assert r.seats == seats and not r.pairs


def test_s3_modus_is_the_first_rule_choosing_it_again_overwrites_the_others() -> None:
    r = Rules.preset("blitz", 4, pairs=True).replace(turn_seconds=30, target=150)
    again = r.with_mode("fuenferfieber")
    assert again == Rules.preset("fuenferfieber", 4, pairs=True)


def test_s3_the_host_may_change_any_single_rule_after_the_preset() -> None:
    r = Rules.preset("zugemauert", 3).replace(fives=True, target=50, turn_seconds=12)
    assert (r.mode, r.lager, r.fives, r.target, r.turn_seconds) == (
        Mode.ZUGEMAUERT,
        False,
        True,
        50,
        12,
    )
    assert r.replace(lager=True).lager


@pytest.mark.parametrize(
    "seats,pairs,expected", [(2, False, 50), (3, False, 75), (4, False, 75), (4, True, 100)]
)
def test_s3_zielpunkte_automatisch_resolves_by_seats_and_pairs(
    seats: int, pairs: bool, expected: int
) -> None:
    assert Rules(seats=seats, pairs=pairs).target_points == expected
    assert Rules(seats=seats, pairs=pairs, target=None).target is None


@pytest.mark.parametrize("target", [30, 50, 100, 150])
def test_s3_zielpunkte_explicit_values_win_over_automatisch(target: int) -> None:
    for seats, pairs in ((2, False), (3, False), (4, True)):
        assert Rules(seats=seats, pairs=pairs, target=target).target_points == target


@pytest.mark.parametrize(
    "change,code",
    [
        ({"target": 75}, "bad_target"),
        ({"target": 0}, "bad_target"),
        ({"turn_seconds": 15}, "bad_turn_seconds"),
        ({"seats": 5}, "bad_seats"),
        ({"seats": 3, "pairs": True}, "pairs_need_four"),
    ],
)
def test_s3_values_outside_the_table_are_refused(change: dict[str, object], code: str) -> None:
    with pytest.raises(InvalidRulesError) as info:
        Rules().replace(**change)
    assert info.value.code == code
    assert str(info.value)  # a readable sentence


def test_s3_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError):
        Rules.preset("schnell")
    with pytest.raises(InvalidRulesError):
        Rules(mode="blitz")  # type: ignore[arg-type]


def test_s3_paare_only_offered_with_four_seats_and_dropped_when_seats_change() -> None:
    r = Rules(seats=4, pairs=True)
    assert not r.replace(seats=3).pairs
    with pytest.raises(InvalidRulesError):
        Rules(seats=2, pairs=True)


def test_s3_paare_means_no_lager_whatever_lager_says() -> None:
    # §4: with Paare all 28 tiles are dealt; Lager An has no effect.
    assert not Rules(seats=4, pairs=True, lager=True).draws
    assert Rules(seats=4, lager=True).draws
    assert not Rules(seats=4, lager=False).draws


def test_s3_rules_round_trip_through_dicts_for_every_combination() -> None:
    for seats, mode, target, seconds, lager, fives in itertools.product(
        (2, 3, 4), Mode, (None, 30, 50, 100, 150), (12, 20, 30), (True, False), (True, False)
    ):
        for pairs in (False, True) if seats == 4 else (False,):
            r = Rules(seats, mode, target, seconds, lager, fives, pairs)
            assert Rules.from_dict(r.to_dict()) == r


def test_s3_rules_are_frozen_values() -> None:
    import dataclasses

    r = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.seats = 3  # type: ignore[misc]
    assert hash(r) == hash(Rules())


@pytest.mark.parametrize(
    "changes",
    [{"lager": "false"}, {"seats": "4"}, {"pairs": 1}, {"target": True}, {"mode": "turbo"}],
)
def test_s3_rules_from_dict_refuses_wrong_types(changes: dict[str, object]) -> None:
    data = {**Rules().to_dict(), **changes}
    with pytest.raises(InvalidRulesError):
        Rules.from_dict(data)


def test_s3_rules_from_dict_round_trips_every_preset() -> None:
    for mode in Mode:
        for seats in (2, 3, 4):
            r = Rules.preset(mode, seats, pairs=seats == 4)
            assert Rules.from_dict(r.to_dict()) == r
