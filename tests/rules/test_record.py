"""Game records (docs/records.md): export, validation, replay, the examples."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_support import VARIANTS, deal

from domino.rules import TILES, Deal, MatchState, RecordError, Rules, Tile
from domino.rules.audience import public_deal
from domino.rules.match import ABANDONED, ROUNDS, TARGET
from domino.rules.record import FORMAT, dumps, loads, outcome_of, record_of, replay, rules_of

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def _play_match(rules: Rules, seed: int, *, stop_after: int | None = None) -> MatchState:
    """A whole match of random legal moves (or cut off after ``stop_after`` moves)."""
    rng = random.Random(seed)
    m = MatchState(rules, seed=seed)
    moves = 0
    while True:
        while not m.round.over:
            if stop_after is not None and moves >= stop_after:
                return m
            legal = m.round.legal_moves()
            m.apply(legal[rng.randrange(len(legal))], m.round.turn)
            moves += 1
        if m.over:
            return m
        m.start_round()


def _example_record() -> dict[str, Any]:
    return json.loads((EXAMPLES / "zugemauert-two-rounds.json").read_text(encoding="utf-8"))


# -- round trip --------------------------------------------------------------------
def _variant_id(r: Rules) -> str:
    return f"{r.mode.value}-{r.seats}-pairs{r.pairs:d}-lager{r.lager:d}-fives{r.fives:d}"


@pytest.mark.parametrize("rules", VARIANTS, ids=_variant_id)
def test_records_of_engine_matches_replay_to_the_identical_outcome(rules: Rules) -> None:
    for seed in range(15):
        m = _play_match(rules, seed)
        rec = record_of(m)
        text = dumps(rec)
        out = replay(text)
        assert out == outcome_of(m)
        assert out.to_dict() == outcome_of(m).to_dict()
        # ... and against the match itself, not only through outcome_of:
        assert out.scores == m.scores and out.finished_reason == m.finished_reason
        assert [r.reason for r in out.rounds] == [r.reason for r in m.results]
        assert [r.winner for r in out.rounds] == [r.winner for r in m.results]
        assert [r.points for r in out.rounds] == [r.points for r in m.results]
        assert [r.fives for r in out.rounds] == [r.fives for r in m.results]
        assert out.standings == m.standings()
        assert out.finished and m.over
        # Exporting the replayed match gives the same record again.
        assert record_of(out.match) == rec
        assert json.loads(text) == rec


def test_records_of_unfinished_matches_replay_to_the_state_reached() -> None:
    for i, rules in enumerate(VARIANTS):
        m = _play_match(rules, 100 + i, stop_after=31 + i)
        out = replay(record_of(m))
        assert out == outcome_of(m)
        assert out.finished == m.over  # a short Blitz may already be over
        last = out.rounds[-1]
        if not m.round.over:
            assert not last.finished and last.reason is None and last.turn == m.round.turn
            assert last.fives == tuple(m.round.side_fives)
        assert out.match.round.line_text() == m.round.line_text()
        assert out.match.round.legal_moves() == m.round.legal_moves()
        assert out.scores == m.scores


def test_record_format_fields() -> None:
    m = _play_match(Rules(seats=2), 3)
    rec = record_of(m, seats=["Anna", {"name": "Bot", "kind": "bot", "level": "profi"}])
    assert rec["format"] == FORMAT and rec["version"] == 1
    assert rec["rules"] == Rules(seats=2).to_dict()
    assert rec["seats"] == [{"name": "Anna"}, {"name": "Bot", "kind": "bot", "level": "profi"}]
    assert len(rec["rounds"]) == m.round_no
    first = rec["rounds"][0]
    assert first["deal"] == public_deal(m.deals[0])  # no tiles out of play (§4)
    assert first["moves"] == [str(e.move) for e in m.rounds[0].log[1:]]
    assert all(isinstance(x, str) for x in first["moves"])
    assert "ended" not in rec


def test_record_leaves_out_player_ids_and_other_seat_fields() -> None:
    class Spec:
        def to_dict(self) -> dict[str, Any]:
            return {"kind": "human", "name": "Anna", "level": None, "player_id": "p-1"}

    m = MatchState(Rules(seats=2), seed=1)
    rec = record_of(m, seats=[Spec(), Spec()])
    assert rec["seats"] == [{"name": "Anna", "kind": "human"}] * 2
    assert "p-1" not in dumps(rec)


def test_an_abandoned_match_is_recorded_and_replays_as_abandoned() -> None:
    m = _play_match(Rules(seats=3), 5, stop_after=12)
    m.end_now()
    rec = record_of(m)
    assert rec["ended"] == ABANDONED
    out = replay(rec)
    assert out.finished and out.finished_reason == ABANDONED
    assert out.scores == m.scores


# -- the examples in docs/examples -------------------------------------------------
def test_example_worked_example_replays_unfinished() -> None:
    out = replay((EXAMPLES / "worked-example.json").read_text(encoding="utf-8"))
    assert not out.finished
    (r,) = out.rounds
    assert (r.moves, r.finished, r.turn) == (5, False, 0)
    assert out.match.round.line_text() == "4|6 6|6 6|2 2|2"
    assert out.seats is not None and [s["name"] for s in out.seats] == ["Anna", "Ben"]


def test_example_zugemauert_two_rounds_ends_at_the_lowered_target() -> None:
    out = replay(_example_record())
    assert out.rules == Rules.preset("zugemauert", 2).replace(target=30)
    r1, r2 = out.rounds
    assert (r1.reason, r1.winner, r1.points, r1.pips, r1.moves) == (
        "blocked",
        None,
        (0, 0),
        (29, 29),
        0,
    )
    assert (r2.reason, r2.out_seat, r2.winner, r2.points) == ("domino", 0, 0, (46, 0))
    assert out.scores == (46, 0)
    assert out.finished_reason == TARGET
    assert [(s.side, s.place) for s in out.standings] == [(0, 1), (1, 2)]


def test_example_paare_fuenferfieber_keeps_fives_and_round_end_apart() -> None:
    out = replay((EXAMPLES / "paare-fuenferfieber.json").read_text(encoding="utf-8"))
    (r,) = out.rounds
    assert (r.reason, r.winner, r.pips) == ("blocked", 0, (15, 26, 15, 26))
    assert r.fives == (0, 15)  # 6|3 at 6|6: 12 + 3
    assert r.points == (50, 0)  # team B's 52 pips, rounded to fives
    assert out.scores == (50, 15) and out.finished_reason == TARGET
    d = out.to_dict()
    assert d["sides"] == "teams"
    assert d["standings"][0] == {"side": 0, "seats": [0, 2], "points": 50, "place": 1}


def test_every_example_replays_and_reexports_identically() -> None:
    files = sorted(EXAMPLES.glob("*.json"))
    assert len(files) >= 3
    for f in files:
        out = replay(f.read_text(encoding="utf-8"))
        again = replay(record_of(out.match, seats=out.seats))
        assert again == out


# -- refusals ----------------------------------------------------------------------
def _broken(path: list[Any], value: Any) -> dict[str, Any]:
    rec = copy.deepcopy(_example_record())
    target: Any = rec
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return rec


@pytest.mark.parametrize(
    "path,value,code,words",
    [
        (["rounds", 1, "moves", 3], "5|5 L", "record_move", ["Round 2, move 4", "do not hold"]),
        (["rounds", 1, "moves", 1], "1|1 L", "record_move", ["Round 2, move 2", "does not fit"]),
        (["rounds", 1, "moves", 0], "D", "record_move", ["Round 2, move 1", "no Lager"]),
        (["rounds", 1, "moves", 1], "P", "record_move", ["Round 2, move 2", "must play"]),
        (["rounds", 1, "moves", 2], "6|2 X", "record_move", ["Round 2, move 3", "not a move"]),
        (["rounds", 1, "moves", 2], 7, "record_move", ["Round 2, move 3", "not a move"]),
        (["rounds", 0, "moves"], ["P"], "record_after_end", ["Round 1, move 1", "already over"]),
        (["rounds", 0, "deal", "hands", 0, 0], "7|7", "record_deal", ["Round 1", "7|7"]),
        (["rounds", 0, "deal", "hands", 0, 0], "6|5", "record_deal", ["Round 1", "twice"]),
        (["rounds", 0, "deal", "out"], [], "record_deal", ["Round 1", "out of play"]),
        (["rounds", 0, "deal"], None, "record_deal", ["Round 1", "no deal"]),
        (["rounds", 0, "dael"], {}, "record_format", ["Round 1", "dael"]),
        (["rounds", 0, "moves"], "P P", "record_format", ["Round 1", "moves"]),
        (["rules", "mode"], "schnell", "record_rules", ["schnell"]),
        (["rules", "seats"], 5, "record_rules", ["2, 3 or 4 seats"]),
        (["rules", "pairs"], True, "record_rules", ["Pairs"]),
        (["rules", "lager"], "no", "record_rules", ["lager"]),
        (["rules", "seats"], True, "record_rules", ["seats"]),
        (["rules", "speed"], 3, "record_format", ["speed"]),
        (["seats"], [{"name": "A"}], "record_seats", ["1 seats"]),
        (["seats", 0, "kind"], "alien", "record_seats", ["alien"]),
        (["seats", 0, "player_id"], "p-1", "record_format", ["player_id"]),
        (["seats", 0, "name"], "", "record_seats", ["name"]),
        (["format"], "chess-pgn", "record_format", ["format"]),
        (["version"], 2, "record_format", ["version 2"]),
        (["rounds"], {}, "record_format", ["rounds"]),
        (["ended"], "bored", "record_format", ["ended"]),
    ],
)
def test_bad_records_are_refused_with_round_move_and_reason(
    path: list[Any], value: Any, code: str, words: list[str]
) -> None:
    with pytest.raises(RecordError) as info:
        replay(_broken(path, value))
    assert info.value.code == code, str(info.value)
    for w in words:
        assert w in str(info.value), str(info.value)


def test_an_illegal_move_names_round_move_and_reason_in_params() -> None:
    with pytest.raises(RecordError) as info:
        replay(_broken(["rounds", 1, "moves", 3], "5|5 L"))
    p = info.value.params
    assert (p["round"], p["move"], p["seat"], p["cause"]) == (2, 4, 0, "not_in_hand")
    assert "do not hold 5|5" in p["reason"]
    assert str(info.value) == ("Round 2, move 4 ('5|5 L'), seat 0 to move: You do not hold 5|5.")


def test_a_round_after_the_match_is_over_is_refused() -> None:
    rec = _example_record()
    rec["rounds"].append(copy.deepcopy(rec["rounds"][0]))
    with pytest.raises(RecordError) as info:
        replay(rec)
    assert info.value.code == "record_after_end"
    assert "Round 3" in str(info.value) and "already over after round 2" in str(info.value)


def test_only_the_last_round_may_be_unfinished() -> None:
    rec = _example_record()
    rec["rules"]["target"] = 50
    rec["rounds"][1]["moves"] = rec["rounds"][1]["moves"][:4]
    rec["rounds"].append(copy.deepcopy(rec["rounds"][0]))
    with pytest.raises(RecordError) as info:
        replay(rec)
    assert info.value.code == "record_unfinished_round"
    assert "Round 2 stops after 4 moves" in str(info.value)


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", '"record"'])
def test_text_that_is_not_a_json_object_is_refused(text: str) -> None:
    with pytest.raises(RecordError) as info:
        replay(text)
    assert info.value.code == "record_unreadable"


def test_loads_and_dumps_round_trip() -> None:
    rec = _example_record()
    assert loads(dumps(rec)) == rec
    with pytest.raises(RecordError):
        loads(b"\xff")


def test_hand_written_rules_follow_the_mode_preset_then_the_named_rules() -> None:
    assert rules_of({"seats": 3, "mode": "zugemauert"}) == Rules.preset("zugemauert", 3)
    assert rules_of({"mode": "blitz"}) == Rules.preset("blitz", 2)
    assert rules_of({"seats": 4, "mode": "fuenferfieber", "pairs": True, "fives": False}) == (
        Rules.preset("fuenferfieber", 4, pairs=True).replace(fives=False)
    )
    assert rules_of({}) == Rules()
    for rules in VARIANTS:
        assert rules_of(rules.to_dict()) == rules


def test_a_record_with_no_rounds_replays_to_an_empty_match() -> None:
    out = replay({"format": FORMAT, "version": 1, "rules": {"seats": 3}, "rounds": []})
    assert out.rounds == () and out.scores == (0, 0, 0) and not out.finished
    assert [s.place for s in out.standings] == [1, 1, 1]


def test_record_rounds_8_the_match_ends_after_8_rounds() -> None:
    rules = Rules.preset("zugemauert", 2).replace(target=150)
    tie = deal(
        rules,
        "6|6 5|0 3|1 4|1 5|1 2|2 3|2",
        "1|0 2|0 3|0 4|0 1|1 4|3 5|5",
        out="6|5 6|4 6|3 6|2 6|1 6|0",
    ).to_dict()
    rec = {"format": FORMAT, "version": 1, "rules": rules.to_dict(), "rounds": []}
    rec["rounds"] = [{"deal": tie, "moves": []} for _ in range(8)]
    out = replay(rec)
    assert out.finished_reason == ROUNDS and out.scores == (0, 0)
    rec["rounds"].append({"deal": tie})
    with pytest.raises(RecordError) as info:
        replay(rec)
    assert "Round 9" in str(info.value)


@settings(max_examples=60, deadline=None)
@given(
    order=st.permutations(TILES),
    rules=st.sampled_from(VARIANTS),
    picks=st.lists(st.integers(0, 1000), min_size=1, max_size=60),
    cut=st.integers(0, 200),
)
def test_property_any_round_cut_anywhere_replays_to_the_same_state(
    order: list[Tile], rules: Rules, picks: list[int], cut: int
) -> None:
    size, n = rules.hand_size, rules.seats
    hands = tuple(tuple(order[i * size : (i + 1) * size]) for i in range(n))
    rest = tuple(order[n * size :])
    d = Deal(hands, rest, ()) if rules.draws else Deal(hands, (), rest)
    m = MatchState(rules, deal=d)
    for step in range(cut):
        if m.round.over:
            break
        legal = m.round.legal_moves()
        m.apply(legal[picks[step % len(picks)] % len(legal)])
    out = replay(dumps(record_of(m)))
    assert out == outcome_of(m)
    assert out.match.round.line_text() == m.round.line_text()
    assert [out.match.round.hand(s) for s in range(n)] == [m.round.hand(s) for s in range(n)]
    assert out.match.round.lager == m.round.lager
