"""Hallucination generators: questions resting on a false premise, with a long reference answer that
names the premise and gives the truth, and a rubric for judging long answers.

- misattribution: a real event credited to the wrong person (a relation instead of the persona), the
  wrong companion or place (one field of the plan's entity swapped for another value of the world) or
  the wrong month. The reference names the false premise and the true attribution.
- fabrication: a plausible event that never happened, drawn from the event catalog for the persona's
  profile with entity values verified absent from every fact, event, plan, turn and document; the answer
  is that there is no record of it, citing the closest real event of the same kind.
- preference_conflict: a question presupposing a preference the persona no longer holds (the profile
  ops and the fact store agree that it changed); the reference names the current preference and when it
  changed.
- contextual_contradiction: a question presupposing a wrong value for a known attribute (an earlier
  value, a move or job offer that fell through, another race's time, the namesake colleague's team);
  the reference corrects it with the value true at question time.

Every answer is computed from facts valid at asked_at (the default question time) and every evidence
item precedes it, so facts added later never change an item.

One module per group: `premises` (misattribution, fabrication: a false event) and `conflicts`
(preference_conflict, contextual_contradiction: a false state). Importing the package registers both."""

from tasks.questions.generators.hallucination import conflicts, premises  # noqa: F401  (register the generators)
