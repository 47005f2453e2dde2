"""Validity measures: one row per measure of a corpus (table `measures`, `lifeloom metrics`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from schemas.qa import ALL_CATEGORIES

MEASURE_GROUPS = ("language", "facts", "coherence", "questions", "difficulty")
BASELINES = ("answer_prior", "question_only_longest", "question_only_overlap", "question_only_frequent",
             "bm25_copy", "pattern_memory", "oracle_copy")
"""The adversarial baselines (tasks/evaluate/baselines.py), the last one the copy reader's oracle ceiling."""
VALUE_BASELINES = ("bm25_copy", "pattern_memory", "oracle_copy")
VALUE_KINDS = ("current_value", "past_value")
ROLES = ("user", "assistant")


class MeasureRow(BaseModel):
    """The value of one validity measure over a whole corpus (tasks/metrics/)."""

    model_config = ConfigDict(extra="forbid")

    measure: str = Field(description="dotted name, e.g. language.assistant.distinct_sentences")
    group: Literal["language", "facts", "coherence", "questions", "difficulty"]
    value: float | None = Field(None, description="null when the corpus holds nothing to measure (see note)")
    n: int = Field(0, description="how many units the value is over (sentences, turns, facts, items)")
    better: Literal["higher", "lower", "none"] = Field(description="which way a harder, more natural corpus moves")
    detail: dict[str, Any] = Field(default_factory=dict, description="breakdowns and examples")
    note: str = Field("", description="why the value is null, or what it rests on")


class QuestionDifficulty(BaseModel):
    """Which adversarial baselines answer one question (table `question_difficulty`, from the difficulty measures):
    an item `question_only_*` or `answer_prior` solves needs no memory, one `bm25_copy` or `pattern_memory` solves
    needs only the shallowest."""

    model_config = ConfigDict(extra="forbid")

    question_id: str
    category: str
    answer_type: str
    solved_by: list[str] = Field(default_factory=list, description="the baselines that answer it correctly")
    scored_by: list[str] = Field(default_factory=list, description="the baselines that were scored on it "
                                 "(question_only_* only on multiple choice)")
    memory_free: bool = Field(description="its template's answer prior gives its answer where a guess would not (a "
                              "short or long answer, not yes/no): answerable without memory")


class QuestionCalibration(BaseModel):
    """A question the release calibration withdrew (table `question_calibration`, tasks/questions/calibrate.py):
    its template's answer prior over the other personas' items gives its answer (reason `answer_prior`), or it was
    the last of a category that those withdrawals left over the persona's share cap (reason `category_share`)."""

    model_config = ConfigDict(extra="forbid")

    question_id: str
    persona_id: str
    category: str
    template: str
    answer: str = Field(description="the question's gold answer")
    prior_answer: str = Field(description="what the template's leave-one-out answer prior answered (empty for "
                              "category_share)")
    round: int = Field(description="the pass that withdrew it (1: over every item; later: over what was left)")
    reason: str = Field("answer_prior", description="answer_prior (the baseline answers it) or category_share")


def measure_row(measure: str, value: float | None, n: int, detail: dict[str, Any] | None = None,
                note: str = "") -> MeasureRow:
    """A MeasureRow: its group the name's first part, its direction `direction(measure)`, its value rounded to
    four places."""
    return MeasureRow(measure=measure, group=measure.split(".", 1)[0],
                      value=None if value is None else round(float(value), 4), n=n, better=direction(measure),
                      detail=detail or {}, note=note)


def measure_names() -> tuple[str, ...]:
    """Every name a measure may have, in the order tables list them (what `[gates.measures]` may bound)."""
    names = [f"language.{r}.{m}" for r in ROLES for m in ("distinct_sentences", "top50_skeleton_share",
                                                          "cross_persona_share", "complete_parses",
                                                          "words_per_sentence")]
    names += [f"coherence.{r}.{m}" for r in ROLES for m in ("connected_turns", "single_intent_turns")]
    names += ["coherence.user.restating_followups", "coherence.repeat_announcements",
              "coherence.greetings_against_time", "coherence.unrelated_senders"]
    names += [f"facts.{m}" for m in ("verbatim_mentions", "mentions_per_fact", "multi_turn_facts", "pattern_recall")]
    names += [f"questions.{m}" for m in ("templates", "skeletons", "top_template_share", "template_answer_share",
                                         "yes_no_balance", "answer_entropy", "abstention_share",
                                         "complete_parses")]
    names += ["difficulty.chance"] + [f"difficulty.chance.{c}" for c in ALL_CATEGORIES]
    for b in BASELINES:
        names += [f"difficulty.{b}"] + [f"difficulty.{b}.{c}" for c in ALL_CATEGORIES]
        names += [f"difficulty.{b}.{k}" for k in VALUE_KINDS] if b in VALUE_BASELINES else []
    return tuple(names)


class MeasureBound(BaseModel):
    """A measure's threshold: the least and/or the most value a release may have."""

    model_config = ConfigDict(extra="forbid")
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _some_bound(self) -> MeasureBound:
        if self.min is None and self.max is None:
            raise ValueError("give min, max or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self


_LOWER = ("top50_skeleton_share", "cross_persona_share", "restating_followups", "repeat_announcements",
          "greetings_against_time", "unrelated_senders", "verbatim_mentions", "pattern_recall", "top_template_share",
          "template_answer_share")
_NEUTRAL = ("words_per_sentence", "mentions_per_fact")


def direction(measure: str) -> str:
    """Which way a more natural, harder corpus moves the measure: higher, lower or none (context only)."""
    parts = measure.split(".")
    if parts[0] == "difficulty":
        return "none" if parts[1] in ("chance", "oracle_copy") else "lower"
    if parts[-1] in _NEUTRAL:
        return "none"
    return "lower" if parts[-1] in _LOWER else "higher"


def bounds(measure: str, threshold: float | MeasureBound) -> tuple[float | None, float | None]:
    """(min, max) of a `[gates.measures]` entry: a number bounds the measure in its better direction."""
    if isinstance(threshold, MeasureBound):
        return threshold.min, threshold.max
    way = direction(measure)
    if way == "none":
        raise ValueError(f"measure {measure!r} has no better direction: give {{min = ..., max = ...}}")
    return (float(threshold), None) if way == "higher" else (None, float(threshold))


DEFAULT_MEASURE_GATES: dict[str, float] = {
    "language.user.distinct_sentences": 0.597,
    "language.user.top50_skeleton_share": 0.2,
    "language.user.cross_persona_share": 0.29,
    "language.user.complete_parses": 0.5,
    "language.assistant.distinct_sentences": 0.012,
    "language.assistant.top50_skeleton_share": 0.97,
    "language.assistant.cross_persona_share": 1.0,
    "language.assistant.complete_parses": 0.607,
    "coherence.user.connected_turns": 0.093,
    "coherence.user.single_intent_turns": 0.532,
    "coherence.assistant.connected_turns": 0.342,
    "coherence.assistant.single_intent_turns": 0.747,
    "coherence.user.restating_followups": 0.11,
    "coherence.repeat_announcements": 1.0,
    "coherence.greetings_against_time": 1.0,
    "coherence.unrelated_senders": 0.42,
    "facts.verbatim_mentions": 0.93,
    "facts.multi_turn_facts": 0.0,
    "facts.pattern_recall": 0.94,
    "questions.top_template_share": 0.21,
    "questions.template_answer_share": 0.5,
    "questions.yes_no_balance": 0.0,
    "questions.answer_entropy": 0.485,
    "difficulty.answer_prior": 0.42,
    "difficulty.question_only_longest": 0.4,
    "difficulty.question_only_overlap": 0.31,
    "difficulty.question_only_frequent": 0.51,
    "difficulty.bm25_copy": 0.53,
    "difficulty.pattern_memory": 0.27,
}
"""Release thresholds every build gets unless its `[gates.measures]` overrides them: today's values of the bundled
presets (tiny, demo, finperma, rhelm, measured at issue 21's commit), with room: a floor at three quarters of the
lowest preset's value, a ceiling 0.1 above the highest (capped at 1). Counts (templates, skeletons) and the noisy
per-category and per-value-kind rows have none. Thresholds of 0 or 1 bind nothing yet: they state where the
corpus is; the narration, world and question issues raise the presets' own."""
