"""Game records: a whole match as JSON, and its replay (docs/records.md).

A record holds the rules, optionally the seats, and for every round its deal
(hands and Lager in drawing order; never the tiles out of play, which nobody
sees, RULES.md §4) and every move in order as text (``"6|2 L"``, ``"D"``,
``"P"``; the automatic opening is not listed).
Pure: works on dicts and JSON strings, reads and writes no files.

>>> from domino.rules import MatchState, Rules
>>> m = MatchState(Rules(seats=2), seed="doc")
>>> while not m.round.over:
...     _ = m.apply(m.round.legal_moves()[0])
>>> rec = record_of(m, seats=[{"name": "Anna"}, {"name": "Ben", "kind": "bot"}])
>>> rec["format"], rec["version"], len(rec["rounds"])
('domino-record', 1, 1)
>>> out = replay(dumps(rec))
>>> out.rounds[0].reason == m.round.result.reason, out.scores == m.scores
(True, True)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from .audience import RECORD_FORMAT, public_deal
from .config import Mode, Rules
from .deal import Deal
from .errors import RecordError, RulesError
from .match import ABANDONED, MatchState, Standing
from .moves import Move
from .round import OPEN

FORMAT: Final = RECORD_FORMAT
VERSION: Final = 1

_TOP_KEYS: Final = frozenset({"format", "version", "rules", "seats", "rounds", "ended", "note"})
_ROUND_KEYS: Final = frozenset({"deal", "moves", "note"})
_DEAL_KEYS: Final = frozenset({"hands", "lager", "out"})
_SEAT_KEYS: Final = frozenset({"name", "kind", "level"})
_RULE_KEYS: Final = frozenset(
    {"seats", "mode", "target", "turn_seconds", "lager", "fives", "pairs"}
)
_SEAT_KINDS: Final = ("human", "bot")


class _HasToDict(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


SeatLike = Mapping[str, Any] | _HasToDict | str


# -- writing ---------------------------------------------------------------------
def record_of(match: MatchState, seats: Sequence[SeatLike] | None = None) -> dict[str, Any]:
    """The record of ``match`` as played so far (JSON-ready dict).

    ``seats``: one entry per seat, a mapping (or an object with ``to_dict()``)
    with ``name`` and optionally ``kind`` (human/bot) and ``level``, or just a
    name; other keys (such as a player id) are left out of the record.
    """
    rec: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "rules": match.rules.to_dict(),
    }
    if seats is not None:
        rec["seats"] = [_seat_entry(s) for s in seats]
        _check_seats(rec["seats"], match.rules)
    rounds = []
    for d, r in zip(match.deals, match.rounds, strict=True):
        moves = [str(ev.move) for ev in r.log if ev.kind != OPEN]
        # The deal as anyone may see it (no tiles out of play, §4): a replay needs none
        # of them (from_dict infers them).
        rounds.append({"deal": public_deal(d), "moves": moves})
    rec["rounds"] = rounds
    if match.finished_reason == ABANDONED:
        rec["ended"] = ABANDONED
    return rec


def dumps(record: Mapping[str, Any]) -> str:
    """JSON text of a record (or an outcome's dict): objects indented, short lists on one line.

    >>> print(dumps({"moves": ["6|2 R", "D"], "deal": {"hands": [["6|6"], ["2|2"]]}}))
    {
     "moves": ["6|2 R", "D"],
     "deal": {
      "hands": [
       ["6|6"],
       ["2|2"]
      ]
     }
    }
    >>> print(dumps({"seats": [{"name": "Anna", "kind": "human"}]}))
    {
     "seats": [
      {"name": "Anna", "kind": "human"}
     ]
    }
    """
    return _json(record, 0)


def _json(obj: Any, depth: int) -> str:
    pad, inner = " " * depth, " " * (depth + 1)
    if isinstance(obj, Mapping) and obj and all(_flat(v) for v in obj.values()):
        line = json.dumps(obj, ensure_ascii=False)
        if len(line) + depth <= 90:
            return line
    if isinstance(obj, Mapping) and obj:
        items = [f"{inner}{json.dumps(str(k))}: {_json(v, depth + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(obj, (list, tuple)) and any(isinstance(v, (Mapping, list, tuple)) for v in obj):
        items = [f"{inner}{_json(v, depth + 1)}" for v in obj]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(obj, ensure_ascii=False)


def _flat(v: Any) -> bool:
    if isinstance(v, (list, tuple)):
        return not any(isinstance(x, (Mapping, list, tuple)) for x in v)
    return not isinstance(v, Mapping)


def loads(text: str | bytes) -> dict[str, Any]:
    """Parse JSON text into a record dict (not yet validated: :func:`replay` does that)."""
    try:
        data = json.loads(text)
    except RecursionError as exc:  # nesting deeper than the interpreter's stack
        raise RecordError(
            "The record is nested too deeply to be a game record.", "record_unreadable"
        ) from exc
    except (ValueError, TypeError) as exc:
        raise RecordError(f"The record is not JSON: {exc}.", "record_unreadable") from exc
    if _too_deep(data, MAX_DEPTH):
        # A record is 6 levels deep; deeper values would only be quoted back in the
        # error messages (and a repr near the stack limit raises RecursionError).
        raise RecordError(
            f"The record is nested too deeply (more than {MAX_DEPTH} levels) to be a game record.",
            "record_unreadable",
        )
    if not isinstance(data, dict):
        raise RecordError("A record is a JSON object.", "record_unreadable")
    return data


#: How deep :func:`loads` lets JSON nest (a record needs 6 levels: rounds, deal, hands).
MAX_DEPTH: Final = 32


def _too_deep(data: Any, limit: int) -> bool:
    """Whether lists and objects nest more than ``limit`` levels (no recursion)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, (dict, list)))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value if isinstance(v, (dict, list)))
    return False


# -- replaying -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """How one round of a replayed record went.

    ``reason`` is ``"domino"`` or ``"blocked"``, ``None`` for a round the
    record leaves unfinished (then ``turn`` is the seat to move and
    ``points``/``pips`` are empty). ``winner`` is a side: a seat, or a team
    (0 = seats 0+2, 1 = seats 1+3) with Paare; ``None`` when nobody scored.
    ``fives`` are the Fünferpunkte scored during play, ``points`` the
    round-end points (§7, rounded under Fünferpunkte), both per side.
    """

    number: int
    moves: int
    reason: str | None
    out_seat: int | None
    winner: int | None
    fives: tuple[int, ...]
    points: tuple[int, ...]
    pips: tuple[int, ...]
    turn: int | None

    @property
    def finished(self) -> bool:
        return self.reason is not None

    @property
    def totals(self) -> tuple[int, ...]:
        if not self.points:
            return self.fives
        return tuple(p + f for p, f in zip(self.points, self.fives, strict=True))

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.number,
            "moves": self.moves,
            "finished": self.finished,
            "reason": self.reason,
            "out_seat": self.out_seat,
            "winner": self.winner,
            "fives": list(self.fives),
            "points": list(self.points),
            "totals": list(self.totals),
            "pips": list(self.pips),
            "turn": self.turn,
        }


@dataclass(frozen=True, slots=True)
class ReplayOutcome:
    """The result of replaying a record: per round, the scores and the standings.

    ``finished_reason`` is ``"target"``, ``"rounds"`` (8 played) or
    ``"abandoned"``; ``None`` while the record stops before the match's end.
    ``match`` is the state reached, to look at or play on.
    """

    rules: Rules
    seats: tuple[dict[str, Any], ...] | None
    rounds: tuple[RoundOutcome, ...]
    scores: tuple[int, ...]
    standings: tuple[Standing, ...]
    finished_reason: str | None
    match: MatchState = field(compare=False, repr=False)

    @property
    def finished(self) -> bool:
        return self.finished_reason is not None

    def to_dict(self) -> dict[str, Any]:
        rules = self.rules
        standings = []
        for s in self.standings:
            members = [i for i in range(rules.seats) if rules.side_of(i) == s.side]
            entry: dict[str, Any] = {
                "side": s.side,
                "seats": members,
                "points": s.points,
                "place": s.place,
            }
            if self.seats is not None:
                entry["names"] = [self.seats[i]["name"] for i in members]
            standings.append(entry)
        out: dict[str, Any] = {
            "rules": rules.to_dict(),
            "target_points": rules.target_points,
            "sides": "teams" if rules.pairs else "seats",
        }
        if self.seats is not None:
            out["seats"] = [dict(s) for s in self.seats]
        out.update(
            {
                "rounds": [r.to_dict() for r in self.rounds],
                "scores": list(self.scores),
                "standings": standings,
                "finished": self.finished,
                "finished_reason": self.finished_reason,
            }
        )
        return out


def outcome_of(match: MatchState, seats: Sequence[SeatLike] | None = None) -> ReplayOutcome:
    """The outcome of ``match`` as it stands (what :func:`replay` returns for its record)."""
    seat_entries = None
    if seats is not None:
        seat_entries = tuple(_seat_entry(s) for s in seats)
        _check_seats(list(seat_entries), match.rules)
    rounds = []
    for number, r in enumerate(match.rounds, start=1):
        moves = len(r.log) - 1
        res = r.result
        if res is None:
            rounds.append(
                RoundOutcome(number, moves, None, None, None, tuple(r.side_fives), (), (), r.turn)
            )
        else:
            rounds.append(
                RoundOutcome(
                    number,
                    moves,
                    res.reason,
                    res.out_seat,
                    res.winner,
                    res.fives,
                    res.points,
                    res.pips,
                    None,
                )
            )
    over = match.over  # settles finished_reason between rounds
    return ReplayOutcome(
        rules=match.rules,
        seats=seat_entries,
        rounds=tuple(rounds),
        scores=match.scores,
        standings=match.standings(),
        finished_reason=match.finished_reason if over else None,
        match=match,
    )


def replay(record: Mapping[str, Any] | str | bytes) -> ReplayOutcome:
    """Validate ``record`` (a dict or JSON text) and replay it move by move.

    Raises :class:`RecordError` naming the round and move (both counted from
    1; the automatic opening is not a move) and the reason. A record may stop
    anywhere: the outcome then shows the state reached.
    """
    data = loads(record) if isinstance(record, (str, bytes)) else record
    if not isinstance(data, Mapping):
        raise RecordError("A record is a JSON object.", "record_unreadable")
    _check_keys(data, _TOP_KEYS, "The record")
    if data.get("format") != FORMAT:
        raise RecordError(
            f'Not a game record: "format" must be "{FORMAT}", not {data.get("format")!r}.',
            "record_format",
        )
    if data.get("version") != VERSION:
        raise RecordError(
            f"Unsupported record version {data.get('version')!r}; this program reads {VERSION}.",
            "record_format",
        )
    rules = rules_of(data.get("rules"))
    seats: tuple[dict[str, Any], ...] | None = None
    if data.get("seats") is not None:
        raw = data["seats"]
        if not isinstance(raw, list):
            raise RecordError('"seats" must be a list, one entry per seat.', "record_seats")
        for i, s in enumerate(raw):
            if isinstance(s, Mapping):
                _check_keys(s, _SEAT_KEYS, f"Seat {i}")
        seats = tuple(_seat_entry(s) for s in raw)
        _check_seats(list(seats), rules)
    ended = data.get("ended")
    if ended not in (None, ABANDONED):
        raise RecordError(f'"ended" can only be "{ABANDONED}", not {ended!r}.', "record_format")
    rounds = data.get("rounds")
    if not isinstance(rounds, list):
        raise RecordError('"rounds" must be a list of rounds.', "record_format")

    match = MatchState(rules, auto=False)
    for number, rnd in enumerate(rounds, start=1):
        _replay_round(match, number, rnd, last=number == len(rounds))
    if ended == ABANDONED:
        match.end_now()
    return outcome_of(match, seats)


def rules_of(data: Any) -> Rules:
    """The rules of a record: the *Modus* preset, then every rule the record names.

    A hand-written record may name only ``seats`` and ``mode``; the other
    rules then follow the mode (§3), exactly as in the lobby.
    """
    if not isinstance(data, Mapping):
        raise RecordError(
            '"rules" must be an object like {"seats": 2, "mode": "klassisch"}.', "record_rules"
        )
    _check_keys(data, _RULE_KEYS, '"rules"')
    types: dict[str, tuple[type, ...]] = {
        "seats": (int,),
        "mode": (str,),
        "target": (int, type(None)),
        "turn_seconds": (int,),
        "lager": (bool,),
        "fives": (bool,),
        "pairs": (bool,),
    }
    for key, value in data.items():
        ok = isinstance(value, types[key]) and not (
            isinstance(value, bool) and bool not in types[key]
        )
        if not ok:
            raise RecordError(f"Rule {key!r} has an unreadable value {value!r}.", "record_rules")
    try:
        mode = Mode(data.get("mode", Mode.KLASSISCH.value))
    except ValueError as exc:
        modes = ", ".join(m.value for m in Mode)
        raise RecordError(
            f"Unknown mode {data.get('mode')!r}; one of {modes}.", "record_rules"
        ) from exc
    try:
        rules = Rules.preset(mode, seats=data.get("seats", 2), pairs=data.get("pairs", False))
        changes = {k: v for k, v in data.items() if k not in ("seats", "mode", "pairs")}
        return rules.replace(**changes) if changes else rules
    except RulesError as exc:
        raise RecordError(f"Bad rules: {exc}", "record_rules") from exc


def _replay_round(match: MatchState, number: int, rnd: Any, *, last: bool) -> None:
    where = f"Round {number}"
    if not isinstance(rnd, Mapping):
        raise RecordError(
            f"{where}: a round is an object with a deal and moves.", "record_format", round=number
        )
    _check_keys(rnd, _ROUND_KEYS, where)
    if match.over:
        raise RecordError(
            f"{where}: the match was already over after round {number - 1} "
            f"({match.finished_reason}).",
            "record_after_end",
            round=number,
        )
    raw_deal = rnd.get("deal")
    if not isinstance(raw_deal, Mapping):
        raise RecordError(f"{where}: the round has no deal.", "record_deal", round=number)
    _check_keys(raw_deal, _DEAL_KEYS, f"{where}, deal")
    try:
        deal = Deal.from_dict(raw_deal)
        match.start_round(deal)
    except RulesError as exc:
        raise RecordError(f"{where}: {exc}", "record_deal", round=number) from exc
    moves = rnd.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError(
            f'{where}: "moves" must be a list of texts like "6|2 L", "D", "P".',
            "record_format",
            round=number,
        )
    r = match.round
    for i, text in enumerate(moves, start=1):
        here = f"{where}, move {i} ({text!r})" if isinstance(text, str) else f"{where}, move {i}"
        if r.result is not None:
            raise RecordError(
                f"{here}: the round was already over after move {i - 1} ({r.result.reason}).",
                "record_after_end",
                round=number,
                move=i,
            )
        try:
            move = Move.parse(text)
            match.apply(move)
        except RulesError as exc:
            raise RecordError(
                f"{here}, seat {r.turn} to move: {exc}",
                "record_move",
                round=number,
                move=i,
                seat=r.turn,
                reason=str(exc),
                cause=exc.code,
            ) from exc
    if not r.over and not last:
        raise RecordError(
            f"{where} stops after {len(moves)} moves before its end, but round {number + 1} "
            "follows; only the last round may be unfinished.",
            "record_unfinished_round",
            round=number,
        )


def _seat_entry(seat: SeatLike) -> dict[str, Any]:
    if isinstance(seat, str):
        raw: Mapping[str, Any] = {"name": seat}
    elif isinstance(seat, Mapping):
        raw = seat
    elif hasattr(seat, "to_dict"):
        raw = seat.to_dict()
    else:
        raise RecordError(f"Unreadable seat {seat!r}.", "record_seats")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise RecordError(f"Every seat needs a name; got {raw!r}.", "record_seats")
    entry: dict[str, Any] = {"name": name}
    kind = raw.get("kind")
    if kind is not None:
        if kind not in _SEAT_KINDS:
            raise RecordError(f"A seat is a human or a bot, not {kind!r}.", "record_seats")
        entry["kind"] = kind
    level = raw.get("level")
    if level is not None:
        if not isinstance(level, str):
            raise RecordError(f"A bot level is a word, not {level!r}.", "record_seats")
        entry["level"] = level
    return entry


def _check_seats(seats: list[dict[str, Any]], rules: Rules) -> None:
    if len(seats) != rules.seats:
        raise RecordError(
            f"The record names {len(seats)} seats for rules with {rules.seats}.", "record_seats"
        )


def _check_keys(data: Mapping[str, Any], allowed: frozenset[str], what: str) -> None:
    unknown = sorted(str(k) for k in data if k not in allowed)
    if unknown:
        raise RecordError(
            f"{what} has unknown fields {', '.join(unknown)}; allowed: "
            f"{', '.join(sorted(allowed))}.",
            "record_format",
        )
