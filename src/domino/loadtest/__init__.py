"""Load, crash and hostile-input tooling for the server (docs/reliability.md).

- :mod:`.serve`: runs the real server (``create_app`` on uvicorn) as its own
  process with benchmark settings;
- :mod:`.procstat`: CPU time and memory of a process from ``/proc``, and the
  file-descriptor limit;
- :mod:`.client`: simulated people speaking the public protocol over real
  WebSockets (guest sign-up, lobby, moves from the ``legal`` list);
- :mod:`.load`: one load process driving many of them, reporting JSON lines;
- :mod:`.bench`: ``domino bench server``, the ramp that finds the knee;
- :mod:`.crash`: ``domino bench crash``, SIGKILLs the server and proves nothing is lost;
- :mod:`.audit`: the leak audit over whole matches and every audience.
"""
