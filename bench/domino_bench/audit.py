"""The leak audit: whole matches, every frame to every audience, checked against the truth.

``domino bench leaks --matches 1000`` (and ``make leak-audit``) plays whole
matches at the table level (:class:`domino.table.Table`, the code that
builds every ``state`` the server forwards unchanged) with a fake clock:
every mode, 2-4 seats, with and without *Paare*, humans and bots of each
level mixed. Humans act like clients do: they pick from the ``legal`` list of
the last message they received, sometimes let their clock run out (so bots
stand in), come back, leave, drop their connection and reconnect (a fresh
snapshot), and send stale or illegal commands. Every message to every
audience, every on-demand snapshot and every error is checked against the
server-side state at that moment:

- no tile another seat holds (before the round's reveal), no Lager tile and
  no *Lager Aus* leftover appears anywhere, not even after the reveal;
- event tiles were laid on the line in this match; draws name no tile;
- a seat's ``hand`` is exactly its hand, a spectator's is ``null``;
  ``legal`` is a subset of the seat's real legal moves and empty when it is
  not the seat's turn; ``lager`` is a count;
- the match seed and any key that could carry secrets (``seed``, ``deal``,
  ``lager_tiles``, ...) never appear.

Running at the table level makes 1,000 matches take about a minute; the
socket layer forwards these messages unchanged (it adds ``lobby``), and the
hostile-client and crash tests cover that layer over real sockets.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

from domino.bots import LEVELS
from domino.rules import TILES, Mode, Rules, tiles_of
from domino.server.protocol import error as error_frame
from domino.table import BACK_COMMAND, LEAVE_COMMAND, Command, MoveCommand, SeatSpec, Table

TILE = re.compile(r"^([0-6])\|([0-6])(?: [LR])?$")
SECRET_KEYS = frozenset({"seed", "deal", "deals", "lager_tiles", "order", "out", "leftovers"})
#: A fake-clock match never needs more steps than this (bounded loop).
MAX_STEPS = 20_000


@dataclass
class AuditReport:
    """What the audit saw."""

    matches: int = 0
    frames: int = 0
    audiences: set[str] = field(default_factory=set)
    configs: set[str] = field(default_factory=set)
    leaks: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        """The report as printed."""
        return [
            f"matches audited:   {self.matches} ({len(self.configs)} mode/seat/Paare configs)",
            f"frames checked:    {self.frames} (audiences: {', '.join(sorted(self.audiences))})",
            f"leaks found:       {len(self.leaks)}",
            *(f"  {leak}" for leak in self.leaks[:10]),
            f"time:              {self.seconds:.1f} s",
            "OK" if not self.leaks else "FAILED",
        ]


def _norm(a: str, b: str) -> str:
    hi, lo = max(int(a), int(b)), min(int(a), int(b))
    return f"{hi}|{lo}"


def _walk(obj: Any, path: str, found: list[tuple[str, str]], keys: set[str]) -> None:
    """Collect (path, tile) for every tile-shaped string, and every key."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            keys.add(k)
            _walk(v, f"{path}.{k}", found, keys)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _walk(v, f"{path}[{i}]", found, keys)
    elif isinstance(obj, str):
        m = TILE.match(obj)
        if m:
            found.append((path, _norm(m.group(1), m.group(2))))


@dataclass(frozen=True)
class Truth:
    """What the server knows at one moment (built once per outcome, shared by audiences)."""

    never: frozenset[str]  # the Lager and the Lager-Aus leftovers: shown to nobody, ever
    line: frozenset[str]  # on the table in this round
    laid: frozenset[str]  # laid on the line in any round of this match
    held: tuple[frozenset[str], ...]  # each seat's hand

    @classmethod
    def of(cls, table: Table, round_no: int | None = None) -> Truth:
        """The state of ``table`` now, or at the end of an earlier round ``round_no``."""
        m = table.match
        assert m is not None
        k = m.round_no if round_no is None else round_no
        rnd = m.rounds[k - 1]
        return cls(
            never=frozenset(
                {str(t) for t in tiles_of(rnd.out)} | {str(TILES[i]) for i in rnd.lager}
            ),
            line=frozenset(str(t) for t, _, _ in rnd.line),
            laid=frozenset(str(t) for r in m.rounds[:k] for t, _, _ in r.line),
            held=tuple(frozenset(str(t) for t in tiles_of(h)) for h in rnd.hands),
        )


QUOTED_TILE = re.compile(r'"([0-6])\|([0-6])(?: [LR])?"')
KEY = re.compile(r'"([A-Za-z_]+)":')


def check_frame(
    table: Table, audience: int | None, msg: dict[str, Any], truth: Truth | None = None
) -> list[str]:
    """Every way ``msg`` to ``audience`` could show what it must not; ``[]`` when clean.

    The fast path finds every tile-shaped string in the JSON text at once; when
    an event of an earlier round names a tile another seat holds now (one
    outcome can span two rounds), every string is checked by its place instead.
    """
    m = table.match
    assert m is not None
    rnd = m.round
    shown = msg.get("view", {}).get("round") if msg.get("type") == "state" else None
    if isinstance(shown, int) and shown != m.round_no and 1 <= shown <= len(m.rounds):
        # One outcome can carry a round's reveal and then the next round: each
        # snapshot is checked against the round it shows (that round is over).
        rnd = m.rounds[shown - 1]
        truth = Truth.of(table, shown)
    truth = truth or Truth.of(table)
    who = "spectators" if audience is None else f"seat {audience}"
    problems: list[str] = []
    text = json.dumps(msg, ensure_ascii=False)
    if table.seed and table.seed in text:
        problems.append(f"{who}: the seed appears")
    own = truth.held[audience] if audience is not None else frozenset()
    held = frozenset().union(*truth.held)
    revealed = False
    event_tiles: set[str] = set()
    shown_hands: set[str] = set()
    if msg.get("type") == "state":
        view = msg["view"]
        revealed = view.get("result") is not None
        if revealed:
            shown_hands = {t for h in view["result"].get("hands") or [] for t in h}
        event_tiles = {e["tile"] for e in msg.get("events") or [] if "tile" in e}
        if audience is None and view.get("hand") is not None:
            problems.append(f"{who}: spectators got a hand")
        if audience is not None and sorted(view.get("hand") or []) != sorted(own):
            problems.append(f"{who}: hand {view.get('hand')} is not the seat's {sorted(own)}")
        legal = view.get("legal") or []
        if legal:
            mine = rnd.turn == audience and not rnd.over
            real = {str(x) for x in rnd.legal_moves()} if mine else set()
            if not set(legal) <= real:
                problems.append(f"{who}: legal {legal} not within {sorted(real)}")
        if not isinstance(view.get("lager"), int):
            problems.append(f"{who}: lager is not a count")
        for h in view.get("history") or []:
            if h.get("kind") == "draw" and "tile" in h:
                problems.append(f"{who}: a draw names its tile")
    mentioned = {_norm(a, b) for a, b in set(QUOTED_TILE.findall(text))}
    if mentioned & truth.never:
        problems.append(f"{who}: shows {sorted(mentioned & truth.never)} (Lager or leftover)")
    if not event_tiles <= truth.laid:
        problems.append(f"{who}: events name {sorted(event_tiles - truth.laid)}, never laid")
    if not shown_hands <= held:
        problems.append(f"{who}: the reveal shows {sorted(shown_hands - held)}, held by nobody")
    allowed = own | truth.line | event_tiles | shown_hands
    if not mentioned <= allowed:
        problems.append(f"{who}: shows {sorted(mentioned - allowed)}, another seat's tiles")
    elif event_tiles - truth.line - own and not revealed:
        # An earlier round's tile named in an event: make sure it shows only there.
        found: list[tuple[str, str]] = []
        keys: set[str] = set()
        _walk(msg, "", found, keys)
        for path, tile in found:
            if not path.startswith(".events") and tile not in own | truth.line:
                problems.append(f"{who}: {path} shows {tile}, another seat's tile")
    keys_seen = set(KEY.findall(text))
    if keys_seen & SECRET_KEYS:
        problems.append(f"{who}: secret keys {sorted(keys_seen & SECRET_KEYS)}")
    return problems


def random_config(rng: random.Random) -> tuple[Rules, list[SeatSpec]]:
    """Rules and seats of one match: any mode, 2-4 seats, Paare sometimes, mixed seats."""
    mode = rng.choice(list(Mode))
    seats = rng.choice((2, 3, 4))
    pairs = seats == 4 and rng.random() < 0.4
    rules = Rules.preset(mode, seats=seats, pairs=pairs)
    if rng.random() < 0.5:
        rules = rules.replace(target=rng.choice((None, 30, 50)))
    humans = rng.randint(1, seats)
    # Meister thinks for a while per move; it sits at one table in twenty.
    levels = [lv for lv in LEVELS if lv != "meister"]
    specs = [SeatSpec("human", f"H{i}", player_id=f"p{i}") for i in range(humans)]
    for i in range(humans, seats):
        level = "meister" if rng.random() < 0.05 else rng.choice(levels)
        specs.append(SeatSpec("bot", f"B{i}", level=level))
    rng.shuffle(specs)
    return rules, specs


class _Human:
    """What one human seat's client knows and plans."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.last: dict[str, Any] | None = None
        self.due: float | None = None
        self.connected = True
        self.left = False


def audit_match(i: int, rng: random.Random, report: AuditReport) -> None:
    """Play one whole match with a fake clock and check every frame."""
    rules, specs = random_config(rng)
    report.configs.add(f"{rules.mode}-{rules.seats}{'-paare' if rules.pairs else ''}")
    now = 1000.0
    table = Table(f"m{i}", rules, specs, f"secret-{rng.getrandbits(64):016x}", now)
    humans = {s: _Human(s) for s, sp in enumerate(specs) if sp.kind == "human"}

    def deliver(frames: list[tuple[int | None, dict[str, Any]]]) -> None:
        truth = Truth.of(table)
        for audience, msg in frames:
            report.frames += 1
            report.audiences.add("spectators" if audience is None else f"seat {audience}")
            for p in check_frame(table, audience, msg, truth):
                report.leaks.append(f"match {i} v{table.version}: {p}")
            h = humans.get(audience) if audience is not None else None
            if h is not None and not h.left and msg.get("type") == "state":
                h.last = msg
                legal = msg["view"]["legal"]
                # Most moves come in 0.2-3 s; one in ten is left to the clock.
                h.due = now + rng.uniform(0.2, 3.0) if legal and rng.random() > 0.1 else None

    deliver(table.snapshots(now))
    for _ in range(MAX_STEPS):
        if table.finished:
            break
        wake = table.next_wakeup()
        acts = [(h.due, h.seat) for h in humans.values() if h.due is not None]
        first = min(acts) if acts else None
        if first is not None and (wake is None or first[0] <= wake):
            now = max(now, first[0])
            h = humans[first[1]]
            h.due = None
            deliver(_human_action(table, h, rng, now, humans))
        elif wake is not None:
            now = max(now, wake)
            deliver(table.advance(now).messages)
        else:
            break
    if not table.finished:
        report.leaks.append(f"match {i}: did not finish within {MAX_STEPS} steps")
    report.matches += 1


def _human_action(
    table: Table, h: _Human, rng: random.Random, now: float, humans: dict[int, _Human]
) -> list[tuple[int | None, dict[str, Any]]]:
    """One client action: usually a legal move, sometimes something else."""
    assert h.last is not None
    msg = h.last
    r = rng.random()
    frames: list[tuple[int | None, dict[str, Any]]] = []
    if r < 0.02:  # drop the connection and come back with a fresh snapshot
        out = table.set_connected(h.seat, False, now)
        frames += out.messages
        out = table.set_connected(h.seat, True, now)
        frames += out.messages
        frames.append((h.seat, table.snapshot(h.seat, now)))
        frames.append((None, table.snapshot(None, now)))
        return frames
    if r < 0.025 and sum(not x.left for x in humans.values()) > 1:
        h.left = True
        cmd: Command = LEAVE_COMMAND
    elif r < 0.05:  # stale or illegal
        cmd = MoveCommand(rng.choice(["6|6 L", "D", "P", "0|0 R", "x"]), 0)
    elif r < 0.07:
        cmd = BACK_COMMAND
    else:
        cmd = MoveCommand(rng.choice(msg["view"]["legal"]), msg["v"])
    out = table.command(h.seat, cmd, now)
    frames += out.messages
    if (refused := out.error) is not None:
        error = error_frame(refused.code, v=refused.v, **refused.params)
        frames.append((h.seat, error.model_dump()))
    return frames


def run_audit(matches: int, seed: int) -> AuditReport:
    """Audit ``matches`` whole matches drawn from ``seed``."""
    rng = random.Random(seed)
    report = AuditReport()
    t0 = time.perf_counter()
    for i in range(matches):
        audit_match(i, rng, report)
    report.seconds = time.perf_counter() - t0
    return report


def register(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``domino bench leaks``."""
    p = what.add_parser("leaks", help="leak audit: whole matches, every frame to every audience")
    p.add_argument("--matches", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=run_audit_cli)


def run_audit_cli(args: argparse.Namespace) -> int:
    """Entry point of ``domino bench leaks``: 0 when nothing leaked."""
    report = run_audit(args.matches, args.seed)
    print("\n".join(report.lines()))
    return 0 if not report.leaks else 1
