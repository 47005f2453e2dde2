"""The questions stage: the persona's benchmark questions, computed from the world and corpus.

`write_questions` runs the question-generation framework (tasks/questions/: generators registered per
characteristic, one module per family; evidence checks, checkpoints, selection and balance, multiple
choice, rephrasing with a real provider) and returns the QuestionSet. Every one of the 27
characteristics has its generator in tasks/questions/<family>.py; this module only runs them.
"""

from __future__ import annotations

from schemas.config import BuildConfig
from schemas.corpus import Corpus
from schemas.profile import Persona
from schemas.qa import QuestionSet
from schemas.world import World
from tasks.questions.assemble import Report, build_questions

STAGE = "questions"


def write_questions(config: BuildConfig, persona: Persona, world: World, corpus: Corpus, gateway=None,
                    report: Report | None = None) -> QuestionSet:
    """The persona's questions with their evidence (tasks/questions/assemble.py does the work). `gateway`
    is used only with a real provider, to reword question texts; `report` collects what was dropped."""
    return build_questions(config, persona, world, corpus, gateway, report=report)
