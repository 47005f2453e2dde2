"""The evaluation loop: rank each question's history with every system, read the top k, score the answer.

Pure: rows in, EvalResult rows out (reading and landing files is warehouse/evaluation.py's job). Retrieval
metrics come from one ranking per (system, setting, question) of depth max(50, max k); the reader sees its
top k for every k asked. Hit and recall metrics are null for a question with no evidence item in its history.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict

from schemas.eval import EvalResult
from schemas.qa import Evidence, Question
from tasks.evaluate import judge, reader

METRIC_KS = {"hit_at": (1, 5, 20), "recall_at": (5, 20, 50)}
BASELINE_RANKING = {"bm25_copy": "bm25", "oracle_copy": "oracle", "answer_prior": None, "pattern_memory": None,
                    "question_only_longest": None, "question_only_overlap": None, "question_only_frequent": None}
"""The retrieval system whose ranking each adversarial baseline reads (None: it ranks nothing)."""


def eval_id_of(release: str, content_hash: str, systems, settings, ks, reader_label: str, majority: bool) -> str:
    """A stable id of the evaluation: same release content, systems, settings, ks and reader -> same id."""
    key = {"release": release, "content": content_hash, "systems": list(systems), "settings": list(settings),
           "ks": list(ks), "reader": reader_label, "majority": majority}
    return "eval-" + hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:12]


def evaluate(release: str, eval_id: str, questions: list[Question], evidence: list[Evidence], turns, chunks,
             systems, settings, ks, gateway=None, majority: bool = False, seed: int = 0,
             dense_model: str | None = None, retriever_factory=None,
             names: dict[str, str] | None = None) -> list[EvalResult]:
    """One EvalResult per (system, setting, k, question), in that order of nesting. The adversarial baselines
    (tasks/evaluate/baselines.py) answer for themselves (their `reader` is their own name); `names` gives each
    persona's name to `pattern_memory`. A baseline's retrieval metrics are those of the ranking it reads
    (bm25_copy: BM25, oracle_copy: the oracle's); the others rank nothing."""
    from tasks.evaluate import baselines, metrics
    from tasks.evaluate.patterns import PatternMemory
    from tasks.evaluate.retrieval import Retriever, items_of

    factory = retriever_factory or (lambda items: Retriever(items, seed=seed, dense_model=dense_model))
    prior = baselines.answer_prior(questions) if "answer_prior" in systems else {}
    memories: dict[str, PatternMemory] = {}
    if "pattern_memory" in systems:
        names = names or {}
        for pid in sorted({q.persona_id for q in questions}):
            memories[pid] = PatternMemory(persona_name=names.get(pid, "")).read(
                [t for t in turns if t.persona_id == pid])
    gold: dict[str, set[str]] = defaultdict(set)
    for e in evidence:
        gold[e.question_id].add(e.evidence_id)
    depth = max(50, *ks)
    pending: list[dict] = []
    for setting in settings:
        items = items_of(turns, chunks, setting)
        by_persona = defaultdict(list)
        for item in items:
            by_persona[item.persona_id].append(item)
        texts = {item.item_id: item.text for item in items}
        retrievers = {pid: factory(its) for pid, its in sorted(by_persona.items())}
        indexes = ({pid: baselines.HistoryIndex(its) for pid, its in by_persona.items()}
                   if "question_only_frequent" in systems else {})
        for system in systems:
            for q in questions:
                retriever = retrievers.get(q.persona_id) or factory([])
                evidence_ids = frozenset(gold.get(q.question_id, ()))
                ranking = BASELINE_RANKING.get(system, system)
                ranked = list(retriever.rank(ranking, q, evidence_ids, depth)) if ranking else []
                seen = {i.item_id for i in by_persona.get(q.persona_id, []) if i.timestamp < q.question_time}
                present = evidence_ids & seen
                base = {"hit_at_" + str(k): (metrics.hit_at(ranked, present, k) if present else None)
                        for k in METRIC_KS["hit_at"]}
                base |= {"recall_at_" + str(k): (metrics.recall_at(ranked, present, k) if present else None)
                         for k in METRIC_KS["recall_at"]}
                base["mrr"] = metrics.mrr(ranked, present) if present else None
                for k in ks:
                    top = ranked if system == "full_context" else ranked[:k]
                    entry = {"q": q, "setting": setting, "system": system, "k": k, "retrieved": top,
                             "texts": [texts[i] for i in top if i in texts], "n_gold": len(present), "metrics": base}
                    if system in baselines.BASELINES:
                        entry["answer"], used = baselines.answer_all(
                            system, [q], persona_history=indexes.get(q.persona_id), memory=memories.get(q.persona_id),
                            retrieved={q.question_id: top}, texts=texts, prior=prior)[q.question_id]
                        entry["retrieved"] = top if ranking else used
                        entry["reader"] = system
                    pending.append(entry)
    unique: dict[tuple, int] = {}  # the same question with the same retrieved items is read once
    to_read = [p for p in pending if "answer" not in p]
    for p in to_read:
        unique.setdefault((p["q"].question_id, tuple(p["retrieved"])), len(unique))
    firsts = {}
    for p in to_read:
        firsts.setdefault(unique[(p["q"].question_id, tuple(p["retrieved"]))], p)
    read, reader_label = reader.read_many([(firsts[i]["q"], firsts[i]["texts"]) for i in range(len(unique))], gateway)
    answers = [p["answer"] if "answer" in p else read[unique[(p["q"].question_id, tuple(p["retrieved"]))]]
               for p in pending]
    scores: list[judge.Score | None] = [None] * len(pending)
    long_idx = []
    for i, (p, a) in enumerate(zip(pending, answers, strict=True)):
        if p["system"] in baselines.QUESTION_ONLY and p["q"].answer_type != "mcq":
            scores[i] = judge.Score(None, "option")  # question-only baselines answer multiple choice only
        elif p["q"].answer_type == "long" and not p["q"].abstention:
            long_idx.append(i)
        else:
            scores[i] = judge.score(p["q"], a)
    long_scores = judge.score_long_many([(pending[i]["q"], answers[i]) for i in long_idx], gateway, majority)
    for i, s in zip(long_idx, long_scores, strict=True):
        scores[i] = s
    rows = []
    for p, a, s in zip(pending, answers, scores, strict=True):
        q = p["q"]
        rows.append(EvalResult(
            eval_id=eval_id, release=release, system=p["system"], setting=p["setting"], k=p["k"],
            question_id=q.question_id, persona_id=q.persona_id, category=q.category,
            characteristics=list(q.characteristics), checkpoint=q.checkpoint, answer_type=q.answer_type,
            retrieved_ids=p["retrieved"], n_gold=p["n_gold"], **p["metrics"], answer=a, correct=s.correct,
            score_method=s.method, judge_agreement=s.agreement, reader=p.get("reader", reader_label), judge=s.judge))
    return rows


def summary_rows(rows: list[EvalResult], by: tuple[str, ...] = ("system", "setting", "k")) -> list[dict]:
    """Means of the metric columns and accuracy per group (nulls skipped), with the group's question count."""
    groups: dict[tuple, list[EvalResult]] = defaultdict(list)
    for r in rows:
        groups[tuple(getattr(r, b) for b in by)].append(r)
    metric_cols = [f"hit_at_{k}" for k in METRIC_KS["hit_at"]] + [f"recall_at_{k}" for k in METRIC_KS["recall_at"]]
    out = []
    for key, members in groups.items():
        row = dict(zip(by, key, strict=True)) | {"n": len(members)}
        for col in metric_cols + ["mrr"]:
            vals = [getattr(m, col) for m in members if getattr(m, col) is not None]
            row[col] = round(sum(vals) / len(vals), 4) if vals else None
        judged = [m.correct for m in members if m.correct is not None]
        row["accuracy"] = round(sum(judged) / len(judged), 4) if judged else None
        out.append(row)
    return out
