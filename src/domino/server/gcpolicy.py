"""How the server process uses Python's cyclic garbage collector.

Measured under load (docs/reliability.md, "Garbage collection"): with the
interpreter's defaults a full collection ran every one to two seconds at 1,000
connected clients and scanned every live object (≈ 200,000: each socket's
coroutines, queues and protocol objects) in 150–250 ms, during which every match
of the process stood still. That pause, not the work per move, made the
latency tail.

The policy, switched on by the processes that serve (``domino serve``, the
benchmark's server) and never inside the test suite:

* young collections run after ``young`` new container objects instead of 700,
  so objects that live only while a move is told (snapshots, frames) are
  mostly freed by reference counting before any collection sees them, and
  few of them are promoted to the old generation;
* every ``freeze_every`` seconds ``gc.freeze()`` moves what is alive into the
  permanent generation: long-lived objects (open sockets, running tables) are
  then no longer scanned by any collection, which only looks at what was made
  since. A freeze also sets the young count back to zero, so with a freeze
  every second a young collection runs only when 60,000 more objects are
  alive within one second. At 8,000 clients the waits in progress (each
  socket's wait for its next message, each match's wait for its next move)
  made one every 2–10 s with a freeze every 10 s, each a 30–140 ms pause of
  every match (docs/performance.md, "8,000 clients on one machine");
* every ``sweep_every`` seconds one complete collection over everything
  (``gc.unfreeze()``, ``gc.collect()``, ``gc.freeze()``) frees cyclic garbage
  that became unreachable after it was frozen (a closed socket's coroutines).
  This is the one long pause left, once per ``sweep_every`` (about 1 s at
  8,000 clients); between sweeps such garbage only waits, it is never lost
  track of (at 8,000 clients about 1,000 objects a second: the server's RSS
  was 35 MB larger after a 3-minute benchmark run than with a freeze every
  10 s).
"""

from __future__ import annotations

import asyncio
import gc
from dataclasses import dataclass


@dataclass(frozen=True)
class GcPolicy:
    """The collector's settings for a serving process (see the module text)."""

    young: int = 60_000
    middle: int = 10
    old: int = 10
    freeze_every: float = 1.0
    sweep_every: float = 600.0

    def apply(self) -> None:
        """Set the thresholds and freeze what exists now (start-up's objects)."""
        gc.set_threshold(self.young, self.middle, self.old)
        gc.freeze()

    async def keep(self) -> None:
        """Run beside the server: freeze periodically, sweep everything rarely."""
        self.apply()
        loop = asyncio.get_running_loop()
        next_sweep = loop.time() + self.sweep_every
        while True:
            await asyncio.sleep(self.freeze_every)
            if loop.time() >= next_sweep:
                next_sweep = loop.time() + self.sweep_every
                gc.unfreeze()
                gc.collect()
            gc.freeze()


__all__ = ["GcPolicy"]
