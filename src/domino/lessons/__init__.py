"""Lessons: "So geht's", the guided first round, and the Tipps as short positions.

Every lesson is data written here and played through the engine (:mod:`domino.rules`)
when it is built: the first round is a real deal whose every move, the bots' included,
is applied by :class:`~domino.rules.RoundState`; each Tipp is a position reached the same
way, and its answer is Meister's (:func:`domino.analysis.judge.judge` on that seat's view).
:func:`domino.lessons.build.lessons` turns them into the JSON the browser reads
(``web/lessons.json``, written by ``python -m domino.lessons``); docs/lessons.md.
"""
