"""An independent, deliberately plain model of one round (RULES.md §5-§8).

It shares no code with the engine: tiles are ``(high, low)`` pairs, hands are
sets, the line is a list of halves as they lie, and every rule is written the
way RULES.md states it, without bitmasks or caches. The playout and property
tests drive it side by side with the engine and demand the same legal moves,
the same refusals, the same line and the same points.
"""

from __future__ import annotations

Pair = tuple[int, int]  # (high, low)


def pair(text: str) -> Pair:
    a, b = (int(x) for x in text.split("|"))
    return (max(a, b), min(a, b))


def text(t: Pair) -> str:
    return f"{t[0]}|{t[1]}"


def pips(hand: set[Pair]) -> int:
    return sum(a + b for a, b in hand)


def to_fives(points: int) -> int:
    """§7: nearest multiple of 5, remainder 1 or 2 down, 3 or 4 up."""
    rest = points % 5
    return points - rest if rest <= 2 else points + 5 - rest


class RefRound:
    def __init__(
        self,
        seats: int,
        lager_on: bool,
        fives_on: bool,
        pairs: bool,
        hands: list[list[str]],
        lager: list[str],
    ) -> None:
        self.n = seats
        self.draws = lager_on and not pairs  # §4: Paare has no Lager
        self.fives_on = fives_on
        self.pairs = pairs
        self.hands = [{pair(t) for t in h} for h in hands]
        self.lager = [pair(t) for t in lager]  # lager[0] is drawn first
        self.line: list[Pair] = []  # (left half, right half) as each tile lies
        self.fives = [0] * (2 if pairs else seats)
        self.drawn: list[Pair] = []  # tiles drawn during the current turn
        self.over = False
        self.reason: str | None = None
        self.winner: int | None = None
        self.points: list[int] = []
        self.final_pips: list[int] = []
        # §5: the highest double opens; without doubles the most pips, then the higher half.
        held = [(t, s) for s, h in enumerate(self.hands) for t in h]
        doubles = [x for x in held if x[0][0] == x[0][1]]
        if doubles:
            tile, seat = max(doubles, key=lambda x: x[0][0])
        else:
            tile, seat = max(held, key=lambda x: (x[0][0] + x[0][1], x[0][0]))
        self.opener = seat
        self.turn = seat
        self.hands[seat].remove(tile)
        self.line.append((tile[1], tile[0]))  # lower half to the left
        self._after_tile(seat)

    # -- the table ----------------------------------------------------------
    def side(self, seat: int) -> int:
        return seat % 2 if self.pairs else seat

    @property
    def ends(self) -> tuple[int, int]:
        return self.line[0][0], self.line[-1][1]

    def fits(self, t: Pair) -> bool:
        left, right = self.ends
        return left in t or right in t

    def anyone_fits(self) -> bool:
        return any(self.fits(t) for h in self.hands for t in h)

    def can_draw(self) -> bool:
        return self.draws and bool(self.lager)

    def count(self) -> int:
        """§8: one tile: all its pips; else the two ends, an end double counted twice."""
        if len(self.line) == 1:
            return sum(self.line[0])
        first, last = self.line[0], self.line[-1]
        left = first[0] * (2 if first[0] == first[1] else 1)
        right = last[1] * (2 if last[0] == last[1] else 1)
        return left + right

    # -- §6 --------------------------------------------------------------------
    def legal(self) -> set[str]:
        if self.over:
            return set()
        left, right = self.ends
        hand = self.hands[self.turn]
        moves = {f"{text(t)} L" for t in hand if left in t}
        moves |= {f"{text(t)} R" for t in hand if right in t}
        any_fit = bool(moves)
        drawn_fits = any(self.fits(t) for t in self.drawn)
        if (not any_fit and not self.can_draw()) or drawn_fits:
            moves.add("P")
        if not any_fit and self.can_draw():
            moves.add("D")
        return moves

    def refusal(self, move: str) -> str:
        """The engine's error code for an illegal ``move`` (the clause it breaks)."""
        if self.over:
            return "round_over"
        hand = self.hands[self.turn]
        any_fit = any(self.fits(t) for t in hand)
        if move == "D":
            if any_fit:
                return "must_play"
            return "no_lager" if not self.draws else "lager_empty"
        if move == "P":
            return "must_play" if any_fit else "must_draw"
        t = pair(move.split()[0])
        if t not in hand:
            return "not_in_hand"
        return "does_not_fit"

    def apply(self, move: str) -> None:
        assert move in self.legal(), (move, self.legal())
        seat = self.turn
        if move == "P":
            self._next()
        elif move == "D":
            t = self.lager.pop(0)
            self.hands[seat].add(t)
            self.drawn.append(t)
            self._check_blocked()
        else:
            tile_text, end = move.split()
            t = pair(tile_text)
            self.hands[seat].remove(t)
            left, right = self.ends
            if end == "L":
                other = t[0] if t[1] == left else t[1]
                self.line.insert(0, (other, left))
            else:
                other = t[0] if t[1] == right else t[1]
                self.line.append((right, other))
            self._after_tile(seat)

    def _after_tile(self, seat: int) -> None:
        if self.fives_on:
            c = self.count()
            if c > 0 and c % 5 == 0:
                self.fives[self.side(seat)] += c
        if not self.hands[seat]:
            self._end("domino", seat)
        elif not self._check_blocked():
            self._next()

    def _check_blocked(self) -> bool:
        if not self.can_draw() and not self.anyone_fits():
            self._end("blocked", None)
            return True
        return False

    def _next(self) -> None:
        self.turn = (self.turn + 1) % self.n
        self.drawn = []

    # -- §7 --------------------------------------------------------------------
    def _end(self, reason: str, out_seat: int | None) -> None:
        self.over = True
        self.reason = reason
        p = [pips(h) for h in self.hands]
        self.final_pips = p
        points = [0] * len(self.fives)
        winner: int | None = None
        if self.pairs:
            team = [p[0] + p[2], p[1] + p[3]]
            if team[0] != team[1]:
                winner = 0 if team[0] < team[1] else 1
                points[winner] = team[1 - winner]
        elif reason == "domino":
            assert out_seat is not None
            winner = out_seat
            points[winner] = sum(p[i] for i in range(self.n) if i != out_seat)
        else:
            low = min(p)
            if p.count(low) == 1:
                winner = p.index(low)
                points[winner] = sum(x - low for x in p)
        if self.fives_on:
            points = [to_fives(x) for x in points]
        self.winner = winner
        self.points = points
