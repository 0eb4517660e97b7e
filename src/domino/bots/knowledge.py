"""What a seat can infer about the hidden tiles from its view (RULES.md §6, §11).

The model keeps, for every other seat, one *slot* per tile it holds; a slot is
a bitmask of tiles that slot cannot be. Facts that narrow slots:

- a seat that draws or passes holds no tile showing either open end at that
  moment (``PublicEvent.ends`` are the ends before the event);
- a tile drawn and then not kept drawing was no fit either (the next draw says
  so); a tile drawn and then played is that last drawn tile;
- the opening (§5) places the highest double, or, without doubles, the
  heaviest tile: nobody was dealt a tile that would have opened instead.

Tiles drawn later start unconstrained, which is why facts attach to slots
rather than to seats. When a played tile fits several slots the model drops
the most constrained one, so it never rules out the true deal (it may stay a
little wider than the truth). Tile counting comes for free: a slot's
candidates are the *unseen* tiles (not on the table, not in the own hand).
"""

from __future__ import annotations

from dataclasses import dataclass

from domino.rules import TILES, WITH, SeatView
from domino.rules.kernel import OPENING_ORDER
from domino.rules.tiles import mask_of

from .base import hand_mask

ALL_TILES = (1 << len(TILES)) - 1


#: Per seat, a forbidden-tile mask per tile it holds (see :class:`Knowledge`).
Slots = tuple[tuple[int, ...], ...]


def _beats() -> tuple[int, ...]:
    """Per tile: the tiles that would have opened before it (the kernel's order of §5); when
    it opened, no seat was dealt one of them."""
    out = [0] * len(TILES)
    before = 0
    for t in OPENING_ORDER:
        out[t] = before
        before |= 1 << t
    return tuple(out)


_BEATS = _beats()


def p_can_play(slots: tuple[int, ...], unseen: int, fit: int) -> float:
    """Rough chance that a seat whose slots forbid ``slots`` (see :class:`Knowledge`) holds
    a tile of ``fit``, each slot uniform over the ``unseen`` tiles it may be and the slots
    independent."""
    miss = 1.0
    for f in slots:
        c = unseen & ~f
        total = c.bit_count()
        if total:
            miss *= 1.0 - (c & fit).bit_count() / total
    return 1.0 - miss


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The public facts about hidden tiles, from one seat's view.

    ``unseen`` is every tile the seat has not seen (other hands, Lager, tiles
    out of play). ``slots[s]`` lists a forbidden-tile mask per tile seat ``s``
    holds (empty for the own seat). ``lager`` and ``out`` count the tiles in
    the Lager and out of play.

    ``births[s]`` gives, per slot of ``slots[s]``, the index in ``view.history``
    of the event that brought the tile into the hand (the opening for dealt
    tiles, else its draw); ``sources`` maps the index of every play event to the
    birth of the slot it was taken from (for a play right after drawing, that draw;
    otherwise the model's choice, the oldest compatible slot as a rule).
    """

    seat: int
    unseen: int
    slots: tuple[tuple[int, ...], ...]
    lager: int
    out: int
    births: tuple[tuple[int, ...], ...] = ()
    sources: tuple[tuple[int, int], ...] = ()

    def candidates(self, seat: int) -> tuple[int, ...]:
        """Per slot of ``seat``: the unseen tiles it may be."""
        return tuple(self.unseen & ~f for f in self.slots[seat])

    def lacks(self, seat: int) -> int:
        """Bitmask of numbers 0..6 that ``seat`` surely holds no tile of."""
        cands = 0
        for c in self.candidates(seat):
            cands |= c
        out = 0
        for n in range(7):
            if not cands & WITH[n]:
                out |= 1 << n
        return out

    def p_can_play(self, seat: int, left: int, right: int) -> float:
        """Rough chance that ``seat`` holds a tile fitting ``left`` or ``right``.

        Treats slots as independent, each uniform over its candidates.
        """
        return p_can_play(self.slots[seat], self.unseen, WITH[left] | WITH[right])


def infer(view: SeatView, *, before_plays: dict[int, Slots] | None = None) -> Knowledge:
    """Replay ``view.history`` into a :class:`Knowledge` for ``view.seat``.

    With ``before_plays`` it also records, for the history index of every play, every
    seat's slots (its own included: the public facts) just before it.
    """
    me = view.seat
    assert me is not None and view.hand is not None
    rules = view.rules
    n = rules.seats
    seen = hand_mask(view) | mask_of(t for t, _, _ in view.line)
    slots: list[list[int]] = [[] for _ in range(n)]
    births: list[list[int]] = [[] for _ in range(n)]
    sources: list[tuple[int, int]] = []
    drew_now = -1  # seat that drew during the current turn, else -1
    for idx, ev in enumerate(view.history):
        s = ev.seat
        if ev.kind == "open":
            assert ev.tile is not None
            beats = _BEATS[ev.tile.index]
            slots = [[beats] * rules.hand_size for _ in range(n)]
            births = [[idx] * rules.hand_size for _ in range(n)]
            slots[s].pop()
            births[s].pop()
            drew_now = -1
            continue
        own = slots[s]
        if ev.kind == "draw":
            assert ev.ends is not None
            lack = WITH[ev.ends[0]] | WITH[ev.ends[1]]
            for i in range(len(own)):
                own[i] |= lack
            own.append(0)
            births[s].append(idx)
            drew_now = s
        elif ev.kind == "pass":
            assert ev.ends is not None
            lack = WITH[ev.ends[0]] | WITH[ev.ends[1]]
            # After drawing, the last drawn tile may be a kept fit (or the Lager
            # ran dry): that slot learns nothing.
            upto = len(own) - 1 if drew_now == s else len(own)
            for i in range(upto):
                own[i] |= lack
            drew_now = -1
        else:  # play
            assert ev.tile is not None
            if before_plays is not None:
                before_plays[idx] = tuple(tuple(x) for x in slots)
            if drew_now == s:
                own.pop()  # only the tile just drawn could fit
                sources.append((idx, births[s].pop()))
            elif own:
                tm = ev.tile.mask
                best = -1
                for i, f in enumerate(own):
                    if not f & tm and (best < 0 or f.bit_count() > own[best].bit_count()):
                        best = i
                own.pop(best)  # -1 (nothing compatible: the model was too narrow) drops the last
                sources.append((idx, births[s].pop(best)))
            drew_now = -1
    slots[me] = []
    births[me] = []
    # The view is the truth about counts; repair the model if it ever disagrees.
    for s in range(n):
        if s == me:
            continue
        want = view.hand_counts[s]
        while len(slots[s]) > want:
            slots[s].pop()
            births[s].pop()
        while len(slots[s]) < want:
            slots[s].append(0)
            births[s].append(0)
    unseen = ALL_TILES & ~seen
    held = sum(view.hand_counts) - len(view.hand)
    out = unseen.bit_count() - held - view.lager_count
    return Knowledge(
        seat=me,
        unseen=unseen,
        slots=tuple(tuple(x) for x in slots),
        lager=view.lager_count,
        out=max(out, 0),
        births=tuple(tuple(x) for x in births),
        sources=tuple(sources),
    )
