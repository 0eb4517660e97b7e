"""What a process costs, read from ``/proc`` (Linux), and the file-descriptor limit."""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass

_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Sample:
    """CPU seconds used so far (user + system) and resident memory in bytes."""

    cpu: float
    rss: int


def sample(pid: int) -> Sample | None:
    """The process's CPU time and RSS now, or ``None`` if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            stat = f.read()
        with open(f"/proc/{pid}/statm", encoding="ascii") as f:
            statm = f.read().split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # The command name (field 2) may contain spaces: split after its closing parenthesis.
    fields = stat[stat.rindex(")") + 2 :].split()
    utime, stime = int(fields[11]), int(fields[12])
    return Sample((utime + stime) / _TICKS, int(statm[1]) * os.sysconf("SC_PAGE_SIZE"))


def raise_nofile(want: int = 65536) -> int:
    """Raise this process's open-file limit towards ``want`` (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft
