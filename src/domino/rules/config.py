"""The rules a host sets (RULES.md §3) and the four mode presets.

>>> r = Rules.preset(Mode.BLITZ, seats=2)
>>> r.target, r.turn_seconds, r.lager, r.fives
(30, 12, True, False)
>>> Rules(seats=4, pairs=True).target_points
100
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from .errors import InvalidRulesError


class Mode(StrEnum):
    """*Modus*: the first rule, a preset for the others."""

    KLASSISCH = "klassisch"
    BLITZ = "blitz"
    ZUGEMAUERT = "zugemauert"
    FUENFERFIEBER = "fuenferfieber"


TARGETS: Final = (None, 30, 50, 100, 150)  # None = Automatisch
TURN_SECONDS: Final = (12, 20, 30)
SEATS: Final = (2, 3, 4)
MAX_ROUNDS: Final = 8

# Modus -> (target, turn seconds, lager, fives)
PRESETS: Final[dict[Mode, tuple[int | None, int, bool, bool]]] = {
    Mode.KLASSISCH: (None, 20, True, False),
    Mode.BLITZ: (30, 12, True, False),
    Mode.ZUGEMAUERT: (None, 20, False, False),
    Mode.FUENFERFIEBER: (100, 20, True, True),
}


@dataclass(frozen=True, slots=True)
class Rules:
    """A complete, valid rules configuration for one match.

    ``target`` is ``None`` for *Automatisch*; :attr:`target_points` resolves it.
    """

    seats: int = 2
    mode: Mode = Mode.KLASSISCH
    target: int | None = None
    turn_seconds: int = 20
    lager: bool = True
    fives: bool = False
    pairs: bool = False

    def __post_init__(self) -> None:
        if self.seats not in SEATS:
            raise InvalidRulesError(
                f"A match has 2, 3 or 4 seats, not {self.seats}.", "bad_seats", seats=self.seats
            )
        if not isinstance(self.mode, Mode):
            raise InvalidRulesError(f"Unknown mode {self.mode!r}.", "bad_mode")
        if self.target not in TARGETS:
            raise InvalidRulesError(
                f"Target points must be automatic, 30, 50, 100 or 150, not {self.target}.",
                "bad_target",
            )
        if self.turn_seconds not in TURN_SECONDS:
            raise InvalidRulesError(
                f"Time per turn must be 12, 20 or 30 seconds, not {self.turn_seconds}.",
                "bad_turn_seconds",
            )
        if self.pairs and self.seats != 4:
            raise InvalidRulesError(
                "Pairs (Paare) can only be played with exactly 4 seats.", "pairs_need_four"
            )

    @classmethod
    def preset(cls, mode: Mode | str, seats: int = 2, pairs: bool = False) -> Rules:
        """The rules that choosing ``mode`` sets (§3); single rules may change after."""
        m = Mode(mode)
        target, seconds, lager, fives = PRESETS[m]
        return cls(seats, m, target, seconds, lager, fives, pairs)

    def with_mode(self, mode: Mode | str) -> Rules:
        """Choose *Modus* again: the preset overwrites the other rules."""
        return Rules.preset(mode, self.seats, self.pairs)

    def replace(self, **changes: Any) -> Rules:
        """A copy with single rules changed (validated again)."""
        if "mode" in changes:
            changes["mode"] = Mode(changes["mode"])
        if changes.get("seats", self.seats) != 4 and "pairs" not in changes:
            changes["pairs"] = False
        return dataclasses.replace(self, **changes)

    @property
    def target_points(self) -> int:
        """*Zielpunkte* with *Automatisch* resolved: 100 with Paare, 50 for 2, 75 for 3-4."""
        if self.target is not None:
            return self.target
        if self.pairs:
            return 100
        return 50 if self.seats == 2 else 75

    @property
    def draws(self) -> bool:
        """Whether a Lager exists to draw from (Lager An and not Paare)."""
        return self.lager and not self.pairs

    @property
    def hand_size(self) -> int:
        """Tiles dealt to each seat (§4)."""
        if not self.draws:
            return 7
        return 7 if self.seats == 2 else 5

    @property
    def sides(self) -> int:
        """Number of scoring sides: teams with Paare, seats otherwise."""
        return 2 if self.pairs else self.seats

    def side_of(self, seat: int) -> int:
        """The scoring side (team with Paare) of ``seat``."""
        return seat % 2 if self.pairs else seat

    def to_dict(self) -> dict[str, Any]:
        return {
            "seats": self.seats,
            "mode": self.mode.value,
            "target": self.target,
            "turn_seconds": self.turn_seconds,
            "lager": self.lager,
            "fives": self.fives,
            "pairs": self.pairs,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Read :meth:`to_dict`'s form strictly: a wrong type is refused, never coerced."""
        if not isinstance(data, dict):
            raise InvalidRulesError("Rules must be an object.", "bad_rules")

        def get(key: str, kind: type, default: Any) -> Any:
            value = data.get(key, default)
            # bool is a subclass of int: keep the two apart.
            if value is not None and (type(value) is not kind):
                raise InvalidRulesError(
                    f"Rule {key!r} must be a {kind.__name__}, not {value!r}.", "bad_rules"
                )
            return value

        try:
            mode = Mode(data.get("mode", "klassisch"))
        except ValueError as exc:
            raise InvalidRulesError(f"Unknown mode {data.get('mode')!r}.", "bad_mode") from exc
        return cls(
            seats=get("seats", int, 2),
            mode=mode,
            target=get("target", int, None),
            turn_seconds=get("turn_seconds", int, 20),
            lager=get("lager", bool, True),
            fives=get("fives", bool, False),
            pairs=get("pairs", bool, False),
        )
