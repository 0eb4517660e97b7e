"""The benchmarks, load tests and the test infrastructure they share with the cluster and
deploy tests: outside the installed package (the wheel has none of it), in the source
checkout's ``bench/``. ``domino bench`` is their door (:mod:`domino.cli.bench`, which
finds this folder in a checkout); pytest finds it through ``pythonpath`` in
pyproject.toml, deploy/site.py by its place beside ``deploy/``.

- :mod:`.serve`: runs the real server (``create_app`` on uvicorn) as its own
  process with benchmark settings;
- :mod:`.procstat`: CPU time and memory of a process from ``/proc``, and the
  file-descriptor limit;
- :mod:`.client`: simulated people speaking the public protocol over real
  WebSockets (guest sign-up, lobby, moves from the ``legal`` list);
- :mod:`.load`: one load process driving many of them, reporting JSON lines;
- :mod:`.bench`: ``domino bench server``, the ramp that finds the knee;
- :mod:`.benchanalysis`, :mod:`.benchcluster`, :mod:`.benchfailover`,
  :mod:`.benchrouter`: ``domino bench analysis``, ``cluster``, ``failover``, ``router``;
- :mod:`.crash`: ``domino bench crash``, SIGKILLs the server and proves nothing is lost;
- :mod:`.audit`: the leak audit over whole matches and every audience;
- :mod:`.benchdb`, :mod:`.benchfence`, :mod:`.benchpgappend`, :mod:`.benchdelivery`:
  the database's appends and the routers' messages, each ``python -m domino_bench.NAME``;
- :mod:`.cluster`, :mod:`.guide`, :mod:`.infra`, :mod:`.launcher`, :mod:`.relay`,
  :mod:`.site`: nodes, HAProxy, PostgreSQL and Redis for the benches and the tests
  (tests/cluster, tests/deploy, tests/server), and what deploy/site.py shares with them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

#: The folder that holds this package (``bench/`` of the checkout).
HOME = Path(__file__).resolve().parent.parent
#: The source checkout (deploy/, src/, bench/).
CHECKOUT = HOME.parent


def child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's) for a ``python -m domino_bench.…`` child process:
    :data:`HOME` first on ``PYTHONPATH``, so the child imports this package too."""
    out = dict(os.environ if env is None else env)
    parts = [str(HOME), *(p for p in out.get("PYTHONPATH", "").split(os.pathsep) if p)]
    out["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))
    return out
