"""The question stage's pipeline over the registered generators.

1. Contexts: the main one (the morning after the simulation) and `checkpoint_probes` mid-timeline ones
   (tasks/questions/checkpoints.py), each a world and corpus cut at its question time.
2. Every generator of the domain pack (`pack_for(config).generators()`: the registered ones of its
   taxonomy) runs in every context; the pack's zero-memory controls run in the main one.
3. Per generator, candidates are tried in priority order, then a seeded draw, with templates and, within a
   template, answers taking turns (`spread`), until CANDIDATES_PER_CHARACTERISTIC pass `prepare` (the rest
   are not prepared: selection takes 2-3 each).
   `prepare` checks each candidate: a category and characteristic of the pack's taxonomy; non-empty
   texts; the answer
   not in the question (unless `extra["options_in_question"]`); facts that resolve; evidence (its own
   refs, each verified to exist, precede the question time and carry its fact; else every turn and
   chunk carrying each fact before the question time, and every fact must have some); for
   `all_instances`, every fact counted has an evidence item; then its checkpoint (post_shock there is a
   suspicion).
4. `select` balances (tasks/questions/select.py); post_shock is confirmed on the selected questions by
   recomputing the answer just before the critical event (tasks/questions/checkpoints.py ShockCheck); each
   selected question is asked as the person would (tasks/questions/asking.py: indirect reference, first
   person, a request), and one none of whose forms parses is regenerated (`worded_selection`); `mcq`
   turns a share of the short items into six-option items; with a real provider, `rephrase` lets the
   model reword the question text (checked: referents, quoted strings and the words that decide the
   answer stay exactly; see `rewording_ok`).
5. Questions are numbered `<persona>-qNNNN` and written with their derivation and evidence rows.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from schemas.config import BuildConfig
from schemas.corpus import Corpus
from schemas.profile import Persona
from schemas.qa import Evidence, Question, QuestionSet, RephrasedQuestion
from schemas.world import World
from tasks.common.facttext import mentions
from tasks.common.rng import rng_for
from tasks.domains import DomainPack, pack_for
from tasks.llm.checks import hard_check
from tasks.questions import mcq
from tasks.questions.asking import Asked, ask
from tasks.questions.base import GENERATORS, STAGE, Candidate, Generator, QContext, Ref
from tasks.questions.checkpoints import ShockCheck, checkpoint_of, context_at, probe_days
from tasks.questions.forms import as_written
from tasks.questions.select import Prepared, Strata, abstains, answer_key, round_robin, select, valid_characteristics
from tasks.questions.wording import quoted, raw_wording

CONTROL = "control"
"""The generator key the zero-memory controls are recorded under."""


@dataclass
class Report:
    """What the stage did, for tests and measurement: candidates per generator, drops by reason."""

    candidates: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)
    kept: Counter = field(default_factory=Counter)


def generators(extra: dict[str, Generator] | None = None, registry: dict[str, Generator] | None = None,
               pack: DomainPack | None = None) -> dict[str, Generator]:
    """`registry`, else the pack's generators, else every registered one; plus `extra` for keys they
    lack, by key."""
    found = dict(registry if registry is not None else pack.generators() if pack is not None else GENERATORS)
    for key, fn in (extra or {}).items():
        found.setdefault(key, fn)
    return dict(sorted(found.items()))


def contexts(config: BuildConfig, persona: Persona, world: World, corpus: Corpus) -> list[QContext]:
    """The main context and the mid-timeline probe contexts."""
    cuts = probe_days(config, persona, world, corpus, config.stages.questions.checkpoint_probes)
    return [context_at(config, persona, world, corpus)] + [context_at(config, persona, world, corpus, c) for c in cuts]


def build_questions(config: BuildConfig, persona: Persona, world: World, corpus: Corpus, gateway=None,
                    extra: dict[str, Generator] | None = None, report: Report | None = None,
                    registry: dict[str, Generator] | None = None) -> QuestionSet:
    """The persona's question set (see the module docstring). `registry` replaces the pack's
    generators (tests); `extra` adds generators for keys the registry lacks."""
    report = report if report is not None else Report()
    pack = pack_for(config)
    gens = generators(extra, registry, pack)
    ctxs = contexts(config, persona, world, corpus)
    runs: dict[str, list[tuple[QContext, Candidate]]] = defaultdict(list)
    for n, ctx in enumerate(ctxs):
        for key, fn in gens.items():
            runs[key] += [(ctx, c) for c in fn(ctx)]
        if n == 0:
            runs[CONTROL] += [(ctx, c) for c in pack.controls(ctx)]
    prepared: list[Prepared] = []
    for key in sorted(runs):
        report.candidates[key] += len(runs[key])
        prepared += capped(config, persona, key, runs[key], report)
    check = ShockCheck(config, persona, world, corpus, gens)
    asked = worded_selection(ctxs, prepared, check, report)
    chosen = [a.prepared for a in asked]
    for p in chosen:
        report.kept[p.generator] += 1
    ctx = ctxs[0]
    priors: dict[str, Counter] = defaultdict(Counter)
    for template, _question, answer in sorted({(p.candidate.template, p.candidate.question, p.candidate.answer)
                                              for p in prepared}):
        priors[template][mcq.normalize(answer)] += 1  # one count a question, however many times it could be asked
    choices = make_mcq(ctx, chosen, [a.text for a in asked], priors)
    return assemble(ctx, asked, choices, rephrase(ctx, asked, gateway))


WORDING_ROUNDS = 20
"""Selections tried before a question none of whose forms parses is dropped rather than replaced."""


def worded_selection(ctxs: list[QContext], prepared: list[Prepared], check: ShockCheck, report: Report,
                     parses=None) -> list[Asked]:
    """The selection (`select`, then `confirm_shocks`), each item as it is asked (tasks/questions/asking.py).
    An item none of whose forms gets a complete parse is regenerated: it leaves the prepared candidates and the
    selection runs again with the same seed, up to WORDING_ROUNDS times; what still fails then is dropped
    (`report.dropped["grammar"]`)."""
    ctx = ctxs[0]
    options = ctx.config.stages.questions
    failed: set[tuple[str, str, str]] = set()
    asked: list[Asked] = []
    for _ in range(WORDING_ROUNDS):
        rng = rng_for(ctx.config.seed, ctx.persona.persona_id, STAGE, None, "select")
        chosen = select(options, [p for p in prepared if _wkey(p) not in failed], rng,
                        Strata(ctx.config.seed, ctx.persona.persona_id))
        asked = ask(ctx, confirm_shocks(check, chosen, ctxs), parses)
        bad = {_wkey(a.prepared) for a in asked if a.wording.parsed is False}
        if not bad:
            return asked
        failed |= bad
        report.dropped["grammar"] += len(bad)
    return [a for a in asked if a.wording.parsed is not False]


def _wkey(p: Prepared) -> tuple[str, str, str]:
    return p.candidate.template, p.candidate.question, p.asked_at.isoformat()


CANDIDATES_PER_CHARACTERISTIC = 40
"""Prepared candidates kept per generator (over all contexts) before selection; a persona asks 2-3 per
characteristic, so 40 leave selection room while prepare and checkpoints run on a bounded number."""


def capped(config: BuildConfig, persona: Persona, key: str, found: list[tuple[QContext, Candidate]],
           report: Report) -> list[Prepared]:
    """Up to CANDIDATES_PER_CHARACTERISTIC of one generator's candidates that pass `prepare`, tried in
    priority order and then a seeded draw (deterministic: the draw follows a sorted order)."""
    rng = rng_for(config.seed, persona.persona_id, STAGE, None, f"cap:{key}")
    ordered = sorted(found, key=lambda x: (x[1].priority, x[1].template, x[1].question,
                                           str(x[1].asked_at or x[0].asked_at), x[1].answer, str(x[0].asked_at)))
    draws = [rng.random() for _ in ordered]
    ordered = spread([x for _, x in sorted(zip(draws, ordered, strict=True), key=lambda d: (d[1][1].priority, d[0]))])
    limit = CANDIDATES_PER_CHARACTERISTIC if key != CONTROL else len(ordered)
    out: list[Prepared] = []
    for i, (ctx, cand) in enumerate(ordered):
        if len(out) >= limit:
            report.dropped["capped"] += len(ordered) - i
            break
        p, why = prepare(ctx, key, cand)
        if p is None:
            report.dropped[why] += 1
        else:
            out.append(p)
    return out


def spread(ordered: list[tuple[QContext, Candidate]]) -> list[tuple[QContext, Candidate]]:
    """`ordered` (priority, then the seeded draw) regrouped so that the capped few that are prepared hold every
    template and every answer: templates take turns (the one with the best priority first), and within a
    template its distinct answers take turns in order of first appearance. Without this a generator's 40 slots
    all go to its priority-0 template (the other templates never reach selection and its cap) and to the
    answer most candidates share."""
    by_template: dict[str, dict[bool, dict[str, list]]] = defaultdict(lambda: defaultdict(dict))
    for item in ordered:
        answers = by_template[item[1].template][abstains(item[1])]
        answers.setdefault(answer_key(item[1].answer), []).append(item)
    streams = [round_robin([round_robin(list(answers.values())) for answers in sides.values()])
               for sides in by_template.values()]
    return round_robin(streams)


def confirm_shocks(check: ShockCheck, chosen: list[Prepared], ctxs: list[QContext]) -> list[Prepared]:
    """The selected questions with post_shock confirmed by recomputation (`ShockCheck`); a suspected one
    whose answer did not change gets its post_distraction or in_timeline checkpoint instead."""
    by_time = {c.asked_at: c for c in ctxs}
    out = []
    for p in chosen:
        if p.checkpoint == "post_shock" and not p.candidate.checkpoint:
            ctx = by_time[p.context_time]
            if not check.changed_by_shock(ctx, p.generator, p.candidate, list(p.refs), p.asked_at):
                p = replace(p, checkpoint=checkpoint_of(ctx, p.candidate, list(p.refs), p.asked_at, shock=False))
        out.append(p)
    return out


# -- checks -----------------------------------------------------------------------------------------
def leaks(cand: Candidate) -> bool:
    """True when the answer appears in the question and the options are not part of the question."""
    return not cand.extra.get("options_in_question") and mentions(cand.question, cand.answer)


def prepare(ctx: QContext, key: str, cand: Candidate) -> tuple[Prepared | None, str]:
    """The candidate with its question time, evidence and checkpoint; or None and why it was dropped."""
    if not valid_characteristics(cand, pack_for(ctx.config).taxonomy()):
        return None, "characteristic"
    if cand.answer_type not in ("short", "long"):
        return None, "answer_type"
    if not (cand.question.strip() and cand.answer.strip() and cand.reference_answer.strip()):
        return None, "empty"
    if "?" not in cand.question:
        return None, "not_a_question"
    if leaks(cand):
        return None, "leak"
    if reason := raw_wording(ctx, cand.question):
        return None, reason
    if any(fid not in ctx.facts for fid in cand.fact_ids):
        return None, "fact_resolves"
    asked_at = cand.asked_at or ctx.asked_at
    if asked_at > ctx.asked_at:
        return None, "asked_after_context"
    if cand.checkpoint == "zero_memory":
        if key != CONTROL and (cand.evidence or cand.fact_ids):
            return None, "zero_memory_with_history"
        return Prepared(cand, key, asked_at, ctx.asked_at, (), "zero_memory"), ""
    refs = evidence(ctx, cand, asked_at)
    if refs is None:
        return None, "evidence"
    if not refs:
        return None, "no_evidence"
    if cand.all_instances and not complete(ctx, cand, refs, asked_at):
        return None, "incomplete"
    return Prepared(cand, key, asked_at, ctx.asked_at, refs, checkpoint_of(ctx, cand, list(refs), asked_at)), ""


def evidence(ctx: QContext, cand: Candidate, asked_at: dt.datetime) -> tuple[Ref, ...] | None:
    """The candidate's verified evidence; None when an explicit ref fails or a fact has no evidence."""
    if cand.evidence:
        for ref in cand.evidence:
            item = ctx.item(ref)
            if item is None or not item[0] < asked_at:
                return None
            if ref.fact_id is not None and not ctx.conveys(ref, item[1]):
                return None
        return tuple(dict.fromkeys(cand.evidence))
    refs: list[Ref] = []
    for fid in cand.fact_ids:
        found = ctx.evidence_for(fid, asked_at)
        if not found:
            return None
        refs += found
    return tuple(dict.fromkeys(refs))


def complete(ctx: QContext, cand: Candidate, refs: tuple[Ref, ...], asked_at: dt.datetime) -> bool:
    """Every counted fact has evidence before asked_at and the refs cite each of them (all_instances)."""
    cited = {r.fact_id for r in refs}
    return all(ctx.evidence_for(fid, asked_at) and fid in cited for fid in cand.fact_ids)


# -- multiple choice --------------------------------------------------------------------------------
def make_mcq(ctx: QContext, chosen: list[Prepared], texts: list[str] | None = None,
             priors: dict[str, Counter] | None = None) -> dict[int, tuple[list[str], int]]:
    """index in `chosen` -> (options, gold index) for a `mcq_share` of the short items that have five
    usable distractors; the rest stay short-answer. An item is made multiple choice only while every memory-free
    heuristic's expected score (`mcq.shortcut_credit`, over the asked `texts` and the templates' candidate answers
    `priors`) summed over the items made so far and this one stays within chance on them (one in six) plus one
    item: no heuristic is expected to beat a guess by more than one item, however many are made."""
    share = ctx.config.stages.questions.mcq_share
    pool = mcq.Pool(ctx)
    rng = ctx.rng("mcq")
    shorts = [i for i, p in enumerate(chosen) if p.candidate.answer_type == "short"]
    rng.shuffle(shorts)
    want = math.floor(share * len(shorts) + 0.5)
    dealer = mcq.Dealer(ctx.rng("mcq:positions"))
    index = mcq.history_index(ctx)
    credit: Counter = Counter()
    out: dict[int, tuple[list[str], int]] = {}
    for i in shorts:
        if len(out) >= want:
            break
        cand = chosen[i].candidate
        key = f"mcq:{cand.template}:{cand.question}:{chosen[i].asked_at}"
        picked = mcq.pick_distractors(cand.answer, list(cand.distractors), pool.same_form(cand, cand.answer),
                                      ctx.rng(key))
        if picked is None:
            continue
        position = dealer.peek()
        options, gold = mcq.options_for(cand.answer, picked, position, ctx.rng(key + ":order"))
        prior = Counter((priors or {}).get(cand.template, {}))
        prior[mcq.normalize(cand.answer)] -= 1  # leave the item itself out, as the release's baseline does
        expected = mcq.shortcut_credit(texts[i] if texts else cand.question, options, gold, chosen[i].asked_at,
                                       index, +prior)
        budget = (len(out) + 1) / len(options) + 1  # chance on the items made so far and this one, one item's slack
        if any(credit[h] + e > budget + 1e-9 for h, e in expected.items()):
            continue  # a heuristic would be expected to beat its chance share: the item stays short-answer
        dealer.next()
        credit.update(expected)
        out[i] = (options, gold)
    return out


# -- rephrasing -------------------------------------------------------------------------------------
DECIDING = (
    "before", "after", "first", "last", "earliest", "latest", "earlier", "later", "most", "least", "highest",
    "lowest", "higher", "lower", "largest", "smallest", "longest", "shortest", "more", "fewer", "less", "not",
    "never", "ever", "only", "since", "until", "no", "none", "nor", "neither", "without", "except", "between",
    "within", "next", "previous", "again", "still", "so far", "at least", "at most", "same", "different",
)
"""Relational, negation and quantifier words that decide a question's answer: a rewording must use each
exactly as often as the template does ("week before" -> "week after", dropping NOT or "lowest" ->
"highest" all change the answer)."""

def deciding_words(text: str) -> Counter:
    """How often each DECIDING word occurs in `text` (case-insensitive; "n't" and "cannot" count as not),
    plus the words written in capitals for emphasis (NOT), which must stay in capitals."""
    low = re.sub(r"n['’]t\b", " not", text.lower()).replace("cannot", "can not")
    found = Counter({w: n for w in DECIDING if (n := len(re.findall(rf"(?<!\w){re.escape(w)}(?!\w)", low)))})
    found.update(f"CAPS:{w}" for w in re.findall(r"\b[A-Z]{2,}\b", text) if w.lower() in DECIDING)
    return found


def referents(ctx: QContext, question: str) -> list[str]:
    """What a rewording must keep: the persona's names, entity names, titles, fact values, dates,
    numbers and quoted strings that the question names."""
    known = {ctx.persona.name, *ctx.persona.name.split()}
    known |= {r.name for r in ctx.persona.profile.relationships}
    known |= {e.name for e in ctx.world.entities} | {p.title for p in ctx.world.plans}
    known |= {d.title for d in ctx.corpus.documents} | {f.value for f in ctx.world.facts}
    known |= {form for f in ctx.world.facts for form in f.surface_forms}
    found = [k for k in known if len(k) >= 3 and mentions(question, k)]
    found += re.findall(r"\d[\d,.:/-]*\d|\d", question)
    found += re.findall(r"\b(?:January|February|March|April|May|June|July|August|September|October|November|"
                        r"December)\b", question)
    found += quoted(question)
    return sorted(set(found))


@hard_check("rephrase_question")
def keeps_referents(output: RephrasedQuestion, context: dict) -> str | None:
    """The gateway's repair check for live rewordings: every referent kept verbatim, and the words that
    decide the answer kept as they are."""
    missing = [k for k in context.get("keep", []) if not (mentions(output.question, k) or k in output.question)]
    if missing:
        return f"keep these exactly as written: {', '.join(missing)}"
    original = str(context.get("question", ""))
    if original and deciding_words(output.question) != deciding_words(original):
        words = sorted({w.removeprefix("CAPS:") for w in deciding_words(original)})
        return ("keep the words that decide the answer exactly as in the question, neither dropped, changed "
                f"nor added: {', '.join(words) or 'add none of before, after, not, most, least, only...'}")
    return None


def rewording_ok(original: str, reworded: str, answer: str, keep: list[str], options_in_question: bool) -> bool:
    """Accept a rewording that keeps every referent and quoted string, uses the words that decide the
    answer (DECIDING) exactly as the original does, still asks, and does not give the answer away."""
    if not reworded.strip() or "?" not in reworded or reworded.strip() == original.strip():
        return False
    if any(not (mentions(reworded, k) or k in reworded) for k in keep):
        return False
    if any(q not in reworded for q in quoted(original)):
        return False
    if deciding_words(reworded) != deciding_words(original):
        return False
    return options_in_question or not mentions(reworded, answer)


def rephrase(ctx: QContext, asked: list[Asked], gateway) -> dict[int, str]:
    """index -> accepted rewording of the asked text, with a real provider only (offline: no model call at
    all); a rewording the grammar check rejects is not accepted (the asked form stays)."""
    options = ctx.config.stages.questions
    if gateway is None or not options.rephrase or ctx.config.provider_for("questions").name == "offline":
        return {}
    from tasks.llm.gateway import CallSpec

    keeps = [referents(ctx, a.text) for a in asked]
    specs = [CallSpec("rephrase_question", {"question": a.text, "keep": keep, "persona": ctx.persona.name},
                      RephrasedQuestion, "questions", ctx.persona.persona_id)
             for a, keep in zip(asked, keeps, strict=True)]
    out = {}
    for i, result in enumerate(gateway.generate_many(specs)):
        cand = asked[i].prepared.candidate
        exempt = bool(cand.extra.get("options_in_question"))
        if rewording_ok(asked[i].text, result.question, cand.answer, keeps[i], exempt) and \
                as_written(result.question.strip()).parsed is not False:
            out[i] = result.question.strip()
    return out


# -- rows -------------------------------------------------------------------------------------------
def assemble(ctx: QContext, asked: list[Asked], choices: dict[int, tuple[list[str], int]],
             reworded: dict[int, str]) -> QuestionSet:
    """Numbered questions with their derivations, and one evidence row per (question, item, fact)."""
    pid = ctx.persona.persona_id
    questions, rows = [], []
    for n, a in enumerate(asked, start=1):
        p = a.prepared
        c, qid = p.candidate, f"{pid}-q{n:04d}"
        cited = [r.fact_id for r in p.refs if r.fact_id and r.fact_id not in c.fact_ids]
        derivation = {
            **c.extra,
            "template": c.template,
            "generator": p.generator,
            "query": c.query,
            "computed_answer": c.answer,
            "fact_ids": list(c.fact_ids) + list(dict.fromkeys(cited)),
            "as_of": p.asked_at.isoformat(),
            "context_as_of": p.context_time.isoformat(),
            "all_instances": c.all_instances,
        }
        text = reworded.get(n - 1, a.text)
        derivation["wording"] = {**a.wording.record(), "source": "rephrase" if n - 1 in reworded else "forms"}
        if a.indirect:
            derivation["indirect"] = [dict(r) for r in a.indirect]
        if text != c.question:
            derivation["template_question"] = c.question
        options, gold = choices.get(n - 1, ([], None))
        questions.append(Question(
            question_id=qid, persona_id=pid, category=c.category,
            characteristics=list(dict.fromkeys(c.characteristics)),
            question_time=p.asked_at, question=text, answer=c.answer,
            reference_answer=c.reference_answer, answer_type="mcq" if options else c.answer_type,
            options=options, gold_option=gold, checkpoint=p.checkpoint, rubric=c.rubric, derivation=derivation,
        ))
        seen: set[tuple[str, str, str | None]] = set()
        for ref in p.refs:
            if (ref.kind, ref.item_id, ref.fact_id) not in seen:
                seen.add((ref.kind, ref.item_id, ref.fact_id))
                rows.append(Evidence(question_id=qid, evidence_id=ref.item_id, evidence_kind=ref.kind,
                                     fact_id=ref.fact_id))
    return QuestionSet(questions=questions, evidence=rows)


def by_key(cands: list[Candidate]) -> dict[tuple[str, str], list[Candidate]]:
    """Candidates by (template, question text): how the QA review matches a question to its recomputation."""
    out: dict[tuple[str, str], list[Candidate]] = defaultdict(list)
    for c in cands:
        out[(c.template, c.question)].append(c)
    return out
