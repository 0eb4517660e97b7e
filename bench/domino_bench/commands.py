"""``domino bench server``, ``leaderboard``, ``cluster``, ``failover``, ``router``, ``crash``
and ``leaks`` (docs/performance.md, docs/reliability.md).

The work lives in :mod:`domino_bench`; this module only adds the
subcommands to ``domino bench``.
"""

from __future__ import annotations

import argparse


def register(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``server``, ``crash`` and ``leaks`` to the ``domino bench`` subparsers ``what``."""
    from domino_bench import (
        audit,
        bench,
        benchanalysis,
        benchboard,
        benchcluster,
        benchfailover,
        benchhint,
        benchmatch,
        benchpuzzles,
        benchrouter,
        crash,
    )

    bench.register(what)
    benchanalysis.register(what)
    benchboard.register(what)
    benchcluster.register(what)
    benchfailover.register(what)
    benchpuzzles.register(what)
    benchhint.register(what)
    benchmatch.register(what)
    benchrouter.register(what)
    crash.register(what)
    audit.register(what)
