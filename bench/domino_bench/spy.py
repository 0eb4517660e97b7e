"""Summarise a py-spy profile of the server: where the time goes.

``py-spy record -p <server pid> -r 200 -d 20 -f raw -o spy.txt`` writes one
collapsed stack per line (``frame;frame;... count``). This prints the share
of samples per thread, the functions that were on top of the stack (self
time) and the functions anywhere on the stack (inclusive time):
``python -m domino_bench.spy [--top N] spy.txt``.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path


def _name(frame: str) -> str:
    # "func (path/to/file.py:123)" -> "func (path/to/file.py)": lines merged per function
    head, sep, rest = frame.partition(" (")
    return f"{head} ({rest.rsplit(':', 1)[0]})" if sep else frame


def summarise(path: Path, top: int = 25) -> list[str]:
    """The report lines for one raw py-spy file."""
    total = 0
    threads: Counter[str] = Counter()
    own: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    for line in path.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue
        count = int(n)
        total += count
        frames = [_name(f) for f in stack.split(";")]
        threads[frames[0]] += count
        own[frames[-1]] += count
        for f in set(frames):
            incl[f] += count
    if not total:
        return ["no samples"]
    out = [f"{total} samples", "threads (outermost frame):"]
    out += [f"  {c / total:6.1%}  {k}" for k, c in threads.most_common(5)]
    out.append("self (on top of the stack):")
    out += [f"  {c / total:6.1%}  {k}" for k, c in own.most_common(top)]
    out.append("inclusive (anywhere on the stack):")
    out += [f"  {c / total:6.1%}  {k}" for k, c in incl.most_common(top * 2)]
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the summary of each file given (``--top N``: N self lines, 2N inclusive)."""
    args = list(argv if argv is not None else sys.argv[1:])
    top = 25
    if args[:1] == ["--top"] and len(args) > 1 and args[1].isdigit():
        top, args = int(args[1]), args[2:]
    for name in args:
        print("\n".join(summarise(Path(name), top)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
