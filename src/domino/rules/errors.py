"""One exception class per kind of failure.

Every exception carries a stable ``code`` (a key of the UI catalogue, so the
server can say it in German) and ``params`` for that text; ``str(exc)`` is a
plain English sentence for logs, records and the CLI.
"""

from __future__ import annotations

from typing import Any


class RulesError(ValueError):
    """Base class of every refusal raised by the engine."""

    code = "rules_error"

    def __init__(self, message: str, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.params: dict[str, Any] = params


class InvalidTileError(RulesError):
    """Text that is not a tile of the double-six set (``7|1``, ``x``)."""

    code = "invalid_tile"


class InvalidMoveError(RulesError):
    """Malformed move text or object (``6|2 X``)."""

    code = "invalid_move"


class IllegalMoveError(RulesError):
    """A well-formed move that the rules do not allow now."""

    code = "illegal_move"


class NotYourTurnError(IllegalMoveError):
    """A seat tried to act while another seat is to move."""

    code = "not_your_turn"


class RoundOverError(IllegalMoveError):
    """A move was sent after the round (or match) ended."""

    code = "round_over"


class InvalidRulesError(RulesError):
    """A rules configuration that cannot be played (Paare with 3 seats, ...)."""

    code = "invalid_rules"


class InvalidDealError(RulesError):
    """A deal that does not account for the 28 tiles as the rules require."""

    code = "invalid_deal"


class RecordError(RulesError):
    """A game record that cannot be read or replayed."""

    code = "invalid_record"
