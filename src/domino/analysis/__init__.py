"""Post-match analysis and replay data (issue 13; docs/analysis.md).

Between :mod:`domino.bots` and :mod:`domino.server`: it imports the rules and the
bots (Meister's sampling), never the server. :mod:`.judge` judges one decision
from the seat's own view; :mod:`.review` walks a finished match's record;
:mod:`.frames` builds the face-up, move-by-move data of the replay viewer.
"""

from .judge import BEST_WITHIN, GRADES, Verdict, grade_of, judge, judge_hindsight
from .review import DEFAULT_SAMPLES, human_moves, plan, positions, review, review_round

__all__ = [
    "BEST_WITHIN",
    "DEFAULT_SAMPLES",
    "GRADES",
    "Verdict",
    "grade_of",
    "human_moves",
    "judge",
    "judge_hindsight",
    "plan",
    "positions",
    "review",
    "review_round",
]
