"""Question measures: how many ways items are asked, and how guessable their answers are.

- `questions.templates`: distinct derivation templates (null for a benchmark without derivations).
- `questions.skeletons`: distinct question skeletons (tasks/metrics/text.py: entities, numbers, dates masked).
- `questions.top_template_share`: the largest share of items one template writes.
- `questions.template_answer_share`: over templates with at least `MIN_TEMPLATE_ITEMS` items, the share of their
  items that carry the template's most common answer (items weighted): a template whose answer is always "No"
  scores 1.
- `questions.yes_no_balance`: 1 - 2 |share of "yes" - 1/2| over the yes/no items: 1 balanced, 0 one-sided.
- `questions.answer_entropy`: per characteristic, the entropy of its answers over the most it could be
  (log of its item count), averaged over characteristics weighted by items.
- `questions.abstention_share`: the share of items the history cannot answer (`Question.abstention`: their gold is
  a decline), with the count by kind (never_said, someone_else, only_planned) and the share of the abstention
  templates' items that are answerable twins in the same words (half means the form gives nothing away).
- `questions.complete_parses`: the share of items every sentence of which gets a complete Link Grammar parse (the
  stage's own check, tasks/questions/forms.py `parse_form`: multi-word names, dates and `email` read as words the
  dictionary has); null without Link Grammar. The detail counts how they are asked: the first person, a request
  or lead, an indirect reference (`derivation.indirect`), and the multi-hop items whose every hop is needed.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from schemas.metrics import MeasureRow
from schemas.metrics import measure_row as row
from schemas.qa import Question
from tasks.evaluate.baselines import is_yes_no, template_of
from tasks.evaluate.text import normalize
from tasks.metrics import grammar
from tasks.metrics.corpus import PersonaCorpus
from tasks.metrics.text import sentences, skeleton

MIN_TEMPLATE_ITEMS = 5


@dataclass
class QuestionTally:
    questions: list[Question] = field(default_factory=list)
    skeletons: Counter = field(default_factory=Counter)
    cache: grammar.VerdictCache | None = field(default=None, repr=False, compare=False)
    """Where the complete-parse verdicts are remembered (the language tally's verdict cache)."""

    def sampled(self) -> list[str]:
        """The sentences `complete_parses` parses (in `rows`), so a pool can parse them first."""
        from tasks.questions.forms import parse_form

        return [parse_form(s) for q in self.questions for s in sentences(q.question)]

    def __getstate__(self) -> dict:  # the verdict cache (an SQLite connection) stays in the process that opened it
        return {**self.__dict__, "cache": None}

    def add(self, corpus: PersonaCorpus) -> None:
        names = corpus.known_names()
        for q in corpus.questions:
            self.questions.append(q)
            self.skeletons[skeleton(q.question, names)] += 1

    def merge(self, other: QuestionTally) -> None:
        """Add the tally of later personas, counted apart (the rows are those of one tally over all, in order)."""
        self.questions += other.questions
        self.skeletons.update(other.skeletons)

    def rows(self) -> list[MeasureRow]:
        qs = self.questions
        if not qs:
            return [row(f"questions.{m}", None, 0, note="no questions") for m in (
                "templates", "skeletons", "top_template_share", "template_answer_share", "yes_no_balance",
                "answer_entropy", "abstention_share", "complete_parses")]
        derived = [q for q in qs if isinstance(q.derivation, dict) and q.derivation.get("template")]
        templates = Counter(template_of(q) for q in qs)
        top, top_n = templates.most_common(1)[0]
        return [
            row("questions.templates", len(templates) if derived else None, len(qs),
                note="" if derived else "no derivation templates (an imported benchmark)"),
            row("questions.skeletons", len(self.skeletons), len(qs),
                {"top": [{"skeleton": s, "n": n} for s, n in self.skeletons.most_common(5)]}),
            row("questions.top_template_share", top_n / len(qs) if derived else None, len(qs),
                {"template": top, "items": top_n} if derived else {}, "" if derived else "no derivation templates"),
            self._answer_share(qs),
            self._yes_no(qs),
            self._entropy(qs),
            self._abstention(qs),
            self._parses(qs),
        ]

    def _answer_share(self, qs: list[Question]) -> MeasureRow:
        by_template: dict[str, Counter] = defaultdict(Counter)
        for q in qs:
            by_template[template_of(q)][normalize(q.answer)] += 1
        sized = {t: c for t, c in by_template.items() if sum(c.values()) >= MIN_TEMPLATE_ITEMS}
        items = sum(sum(c.values()) for c in sized.values())
        top = sum(c.most_common(1)[0][1] for c in sized.values())
        fixed = sorted(t for t, c in sized.items() if len(c) == 1)
        return row("questions.template_answer_share", top / items if items else None, items,
                   {"templates": len(sized), "one_answer_templates": fixed[:20]},
                   "" if items else f"no template with {MIN_TEMPLATE_ITEMS} items")

    def _yes_no(self, qs: list[Question]) -> MeasureRow:
        yn = [q for q in qs if is_yes_no(q)]
        if not yn:
            return row("questions.yes_no_balance", None, 0, note="no yes/no items")
        yes = sum(normalize(q.answer) == "yes" for q in yn) / len(yn)
        by_char: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for q in yn:
            for c in q.characteristics:
                by_char[c][0] += normalize(q.answer) == "yes"
                by_char[c][1] += 1
        return row("questions.yes_no_balance", 1 - 2 * abs(yes - 0.5), len(yn),
                   {"yes_share": round(yes, 4), "by_characteristic": {c: round(y / n, 4) for c, (y, n) in
                                                                     sorted(by_char.items())}})

    def _entropy(self, qs: list[Question]) -> MeasureRow:
        by_char: dict[str, Counter] = defaultdict(Counter)
        for q in qs:
            for c in q.characteristics:
                by_char[c][normalize(q.answer)] += 1
        scores, total = {}, 0
        weighted = 0.0
        for c, answers in sorted(by_char.items()):
            n = sum(answers.values())
            if n < 2:
                continue
            h = -sum(k / n * math.log(k / n) for k in answers.values())
            scores[c] = round(h / math.log(n), 4)
            weighted += scores[c] * n
            total += n
        return row("questions.answer_entropy", weighted / total if total else None, total,
                   {"by_characteristic": scores}, "" if total else "too few items per characteristic")

    def _abstention(self, qs: list[Question]) -> MeasureRow:
        kinds = Counter(q.abstention for q in qs if q.abstention)
        templates = {template_of(q) for q in qs if q.abstention}
        shared = [q for q in qs if template_of(q) in templates]
        twins = sum(1 for q in shared if not q.abstention)
        return row("questions.abstention_share", sum(kinds.values()) / len(qs), len(qs),
                   {"by_kind": dict(sorted(kinds.items())),
                    "answerable_share_in_abstention_templates": round(twins / len(shared), 4) if shared else None})

    def _parses(self, qs: list[Question]) -> MeasureRow:
        from tasks.questions.forms import parse_form

        wording = [q.derivation.get("wording") or {} for q in qs if isinstance(q.derivation, dict)]
        hops = [q.derivation.get("hops_needed") for q in qs if isinstance(q.derivation, dict)
                and "multi_hop_traversal" in q.characteristics and "hops_needed" in q.derivation]
        detail = {"first_person": sum(1 for w in wording if w.get("person") == "first"),
                  "request_or_lead": sum(1 for w in wording if w.get("form") not in (None, "direct")),
                  "indirect": sum(1 for q in qs if isinstance(q.derivation, dict) and q.derivation.get("indirect")),
                  "multi_hop_needed": f"{sum(1 for h in hops if h)} of {len(hops)}"}
        if not grammar.available():
            return row("questions.complete_parses", None, len(qs), detail, note="Link Grammar is not installed")
        failed = [q.question_id for q in qs
                  if any(grammar.parses(parse_form(s), self.cache) is False for s in sentences(q.question))]
        return row("questions.complete_parses", 1 - len(failed) / len(qs), len(qs), detail | {"failed": failed[:20]})
