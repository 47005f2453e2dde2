"""The item sign-off: a question review that reads the landed items as a reviewer would, against the world tables
and the history, independent of the generators that wrote them (this package never imports tasks.questions; a test
holds it to that). Its findings are errors: they fail the build's consistency gate and show in the dashboard.

What it refuses to sign (tasks/signoff/checks.py):
- voice: the user speaking of themselves in the third person, or calling their assistant "the assistant";
- quoted: a quoted title or phrase the history never said, or a document title given another day;
- relation_word: a relation word (`my sister`, `which friend`) that does not hold for the person it names on the
  question's day;
- reference: a reference answer that names another option before the gold, or a short answer's reference
  without the gold;
- label_answer: a gold answer that is the fact store's bookkeeping (`car repair paid in full`), not speech;
- garbled: a question holding no-words (`make,ed`, a field name, an id, a template slot);
- restriction_scope: a restriction held against a request it does not rule out (a flight ban against exercise).
"""

from __future__ import annotations

from schemas.audit import Finding
from schemas.corpus import Corpus
from schemas.profile import Persona
from schemas.qa import QuestionSet
from schemas.world import World
from tasks.signoff.checks import CHECKS
from tasks.signoff.view import View

STAGE = "signoff"


def signoff(persona: Persona, world: World, corpus: Corpus, questions: QuestionSet) -> list[Finding]:
    """Every problem the sign-off finds in the persona's questions, as error findings (ids `<pid>-s0001` ...)."""
    view = View(persona, world, corpus)
    found: list[Finding] = []
    for q in questions.questions:
        for name, check in CHECKS.items():
            for message, suggestion in check(view, q):
                found.append(Finding(
                    finding_id=f"{persona.persona_id}-s{len(found) + 1:04d}", persona_id=persona.persona_id,
                    stage=STAGE, artifact_id=q.question_id, check=f"signoff.{name}", severity="error",
                    message=message, suggestion=suggestion))
    return found
