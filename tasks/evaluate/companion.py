"""Scoring the companion tracks (issue 12): the chat track's retrieval, restraint and detectability, and the
reconstruction track's field-level precision, recall and F1. Pure: rows in, result rows and a summary out.

Chat track. Each probe's memory is the persona's turns strictly before its recent window (the `window` turns
just before the probe in its session; with no window, before the probe itself), ranked by the systems of
tasks/evaluate/retrieval.py with the probe text as the query.
- Retrieval (memory-bearing probes with a required episode turn in that memory): hit@k and MRR of the
  required_episodes.
- Firing rule. A system's confidence is its top-1 score: BM25 score (bm25), cosine (dense), the mean of the
  probe's bm25 and dense percentile ranks among the evaluated probes (hybrid). Its threshold is calibrated on the
  proportional stratum: the largest value at which it fires (score >= threshold and score > 0) on at most the
  stratum's natural memory rate (share of its memory-bearing probes; all probes when the stratum is empty).
  recency and random have no confidence and always fire; oracle and broken_oracle fire exactly on
  memory-bearing probes.
- Restraint: misfire rate = share of probes that need no memory on which the system fires.
- Appropriate use at k: share of memory-bearing probes on which it fires and a required turn is in its top k.
- Detectability: AUROC of the top-1 score for memory_need (Mann-Whitney, ties averaged), over all probes
  (`auroc`) and over the proportional stratum alone (`auroc_proportional`). The enriched and abstention strata
  are drawn by memory need, so they tilt the all-probes figure; the proportional one, sampled at the corpus's
  natural rate, is the honest detectability figure. The headline is bm25's.

Reconstruction track. A field is (subject, attribute, normalized value) per persona: subject and value pass
through tasks/evaluate/text.normalize (case, accents, punctuation, articles), the attribute is compared exactly
after stripping. The subject is the claim's `subject` as released in profile.json (the persona's own name for
facts about the persona, another person's name for facts about them), so equal values about different people
are different fields. Gold fields come from the released profile_claims; a prediction is JSONL rows with string
persona_id, subject, attribute and value (all required: a row without subject is an error naming its line, so a
prediction never silently matches the wrong person) and optionally `temporality` (stable, event or transient)
and `evidence_turn_ids` (a list of turn ids).
- Precision, recall and F1 per persona and micro-averaged over all personas, and per slot (a predicted
  (subject, attribute) takes the slot its gold claims have; others count under `unmapped`).
- Temporality accuracy: over matched fields whose prediction gives a temporality, the share equal to the gold
  claim's. Evidence hit rate: over matched fields whose prediction gives a non-empty evidence_turn_ids, the share
  that share at least one id with the gold claim's evidence. Both report how many fields they scored.
- first_seen, last_seen and confidence are released with the claims (profile.json) but not scored.
Built-in predictors: `gold` (the claims themselves, with their temporality and evidence: every score 1),
`stale` (each claim's first told value of its subject and attribute instead of the latest, with the turns that
told that value as evidence and no temporality, so its temporality is not scored), `empty` (nothing).
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from schemas.companion import TEMPORALITIES, ChatProbe, ProfileClaim
from schemas.corpus import Turn
from schemas.world import Fact
from tasks.common.jsonl import JSONLError, iter_jsonl
from tasks.evaluate import metrics
from tasks.evaluate.text import normalize

CHAT_SYSTEMS = ("bm25", "dense", "hybrid", "recency", "random", "oracle", "broken_oracle")
DEFAULT_CHAT_SYSTEMS = ("bm25", "recency", "random", "oracle", "broken_oracle")
CHAT_KS = (1, 5, 20)
PREDICTORS = ("gold", "stale", "empty")
ALWAYS_FIRE = ("recency", "random")
ORACLES = ("oracle", "broken_oracle")
PREDICTION_KEYS = ("persona_id", "subject", "attribute", "value")
COUNTS = ("gold", "predicted", "matched", "temporality_scored", "temporality_correct", "evidence_scored",
          "evidence_hit")


@dataclass(frozen=True)
class Query:
    """A probe as the Retriever sees it: its memory ends where its recent window starts."""

    question_id: str
    persona_id: str
    question: str
    question_time: object


# --- small metrics -------------------------------------------------------------------------------------------

def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """Area under the ROC curve of `scores` for `labels` by ranks (ties get their average rank); None when a
    class is empty."""
    pos = sum(1 for y in labels if y)
    neg = len(labels) - pos
    if pos == 0 or neg == 0:
        return None
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for m in range(i, j + 1):
            ranks[order[m]] = (i + j) / 2 + 1
        i = j + 1
    rank_sum = sum(r for r, y in zip(ranks, labels, strict=True) if y)
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def threshold_at_rate(scores: Sequence[float], rate: float) -> float:
    """The smallest positive score s at which at most floor(rate * n) scores are >= s (inf when none may fire).
    One sort, then a walk down the distinct values with the running count of scores >= each."""
    allowed = math.floor(rate * len(scores) + 1e-9)
    ordered = sorted((s for s in scores if s > 0), reverse=True)
    if allowed <= 0 or not ordered:
        return math.inf
    best, i = math.inf, 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j] == ordered[i]:
            j += 1
        if j > allowed:  # j scores are >= ordered[i]
            break
        best, i = ordered[i], j
    return best


def prf(tp: int, n_pred: int, n_gold: int) -> dict[str, float]:
    """Precision, recall and F1 (1.0 each when nothing is predicted and nothing is gold)."""
    if n_pred == 0 and n_gold == 0:
        return {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


# --- the chat track -------------------------------------------------------------------------------------------

def window_starts(probes: Sequence[ChatProbe], turns: Sequence[Turn]) -> dict[str, object]:
    """probe id -> the time its memory ends: the first recent-window turn's timestamp (the probe's own when the
    window is empty)."""
    sessions: dict[str, list[Turn]] = defaultdict(list)
    for t in turns:
        sessions[t.session_id].append(t)
    order = {sid: [t.turn_id for t in sorted(ts, key=lambda t: (t.timestamp, t.turn_id))]
             for sid, ts in sessions.items()}
    stamp = {t.turn_id: t.timestamp for t in turns}
    out = {}
    for p in probes:
        ids = order.get(p.session_id, [])
        pos = ids.index(p.turn_id) if p.turn_id in ids else 0
        first = max(0, pos - p.window)
        out[p.probe_id] = stamp[ids[first]] if p.window and pos > 0 else p.probe_time
    return out


def _top_score(retriever, system: str, query: Query, n: int) -> float:
    """The top-1 BM25 score or cosine over the first n items (0 for an empty memory)."""
    from tasks.evaluate.retrieval import _words

    if n == 0:
        return 0.0
    if system == "bm25":
        index = retriever._bm25_index()
        words = [w for w in _words(query.question) if w in index.vocab_dict]
        return float(np.max(index.get_scores(words)[:n])) if words else 0.0
    vectors = retriever._dense_vectors()
    return float(np.max(vectors[:n] @ retriever._query_vector(query.question)))


def _percentiles(values: Sequence[float]) -> list[float]:
    ordered = sorted(values)
    return [bisect.bisect_right(ordered, v) / len(ordered) for v in values]


def check_systems(systems: Sequence[str]) -> None:
    """ValueError naming the first unknown chat system, or asking for one when none is given."""
    if not systems:
        raise ValueError(f"give at least one system ({', '.join(CHAT_SYSTEMS)})")
    unknown = [s for s in systems if s not in CHAT_SYSTEMS]
    if unknown:
        raise ValueError(f"unknown chat system {unknown[0]!r} (choose from {', '.join(CHAT_SYSTEMS)})")


def chat_rows(probes: Sequence[ChatProbe], turns: Sequence[Turn], systems: Sequence[str], ks: Sequence[int],
              seed: int = 0, dense_model: str | None = None, retriever_factory=None) -> list[dict]:
    """One row per (system, probe): retrieved ids, hit_at_k and mrr (memory-bearing probes with gold in memory),
    top-1 score, fires, misfire and appropriate_at_k, by the rules in the module docstring."""
    from tasks.evaluate.retrieval import Retriever, items_of

    check_systems(systems)
    factory = retriever_factory or (lambda items: Retriever(items, seed=seed, dense_model=dense_model))
    by_persona: dict[str, list] = defaultdict(list)
    for item in items_of(list(turns), [], "turns"):
        by_persona[item.persona_id].append(item)
    retrievers = {pid: factory(items) for pid, items in sorted(by_persona.items())}
    starts = window_starts(probes, turns)
    probes = sorted(probes, key=lambda p: p.probe_id)
    depth = max(ks)
    scored = {s for s in systems if s in ("bm25", "dense")} | ({"bm25", "dense"} if "hybrid" in systems else set())
    raw: dict[str, list[float]] = {s: [] for s in sorted(scored)}
    base = []
    for p in probes:
        query = Query(p.probe_id, p.persona_id, p.text, starts[p.probe_id])
        retriever = retrievers.get(p.persona_id) or factory([])
        n = retriever.history(query)
        memory = {i.item_id for i in retriever.items[:n]}
        base.append((p, query, retriever, n, sorted(set(p.required_episodes) & memory)))
        for s in raw:
            raw[s].append(_top_score(retriever, s, query, n))
    if "hybrid" in systems:
        raw["hybrid"] = [(a + b) / 2 for a, b in zip(_percentiles(raw["bm25"]), _percentiles(raw["dense"]),
                                                      strict=True)]
    rows = []
    for system in systems:
        for i, (p, query, retriever, n, gold) in enumerate(base):
            ranked = retriever.rank(system, query, frozenset(p.required_episodes), depth)
            row = {"system": system, "probe_id": p.probe_id, "persona_id": p.persona_id, "stratum": p.stratum,
                   "tier": p.tier, "category": p.category, "memory_need": p.memory_need, "n_memory": n,
                   "n_gold": len(gold), "retrieved_ids": ranked,
                   "top1_score": raw[system][i] if system in raw else None}
            for k in ks:
                row[f"hit_at_{k}"] = metrics.hit_at(ranked, gold, k) if p.memory_need and gold else None
            row["mrr"] = metrics.mrr(ranked, gold) if p.memory_need and gold else None
            rows.append(row)
    _fire(rows, ks)
    return rows


def _fire(rows: list[dict], ks: Sequence[int]) -> None:
    """Set threshold, fires, misfire and appropriate_at_k on every row (rules in the module docstring)."""
    for system in dict.fromkeys(r["system"] for r in rows):
        mine = [r for r in rows if r["system"] == system]
        calib = [r for r in mine if r["stratum"] == "proportional"] or mine
        rate = sum(r["memory_need"] for r in calib) / len(calib) if calib else 0.0
        threshold = None
        if mine and mine[0]["top1_score"] is not None:
            threshold = threshold_at_rate([r["top1_score"] for r in calib], rate)
        for r in mine:
            if system in ALWAYS_FIRE:
                fires = True
            elif system in ORACLES:
                fires = bool(r["memory_need"])
            else:
                fires = r["top1_score"] > 0 and r["top1_score"] >= threshold
            r["natural_rate"] = rate
            r["threshold"] = None if threshold is None or math.isinf(threshold) else threshold
            r["fires"] = fires
            r["misfire"] = None if r["memory_need"] else fires
            gold_hit = {k: bool(r[f"hit_at_{k}"]) for k in ks}
            for k in ks:
                r[f"appropriate_at_{k}"] = (fires and gold_hit[k]) if r["memory_need"] else None


def _mean(values: Iterable) -> float | None:
    vals = [float(v) for v in values if v is not None]
    return round(math.fsum(vals) / len(vals), 4) if vals else None


def chat_summary(rows: list[dict], ks: Sequence[int]) -> dict:
    """Per system: probes, memory-bearing probes, hit@k, MRR, misfire rate, appropriate use, threshold, AUROC;
    and MRR by tier; `detectability_auroc` is bm25's AUROC."""
    by_system, by_tier = [], []
    for system in dict.fromkeys(r["system"] for r in rows):
        mine = [r for r in rows if r["system"] == system]
        entry = {"system": system, "probes": len(mine), "memory_probes": sum(r["memory_need"] for r in mine),
                 "scored_probes": sum(r["mrr"] is not None for r in mine)}
        entry |= {f"hit_at_{k}": _mean(r[f"hit_at_{k}"] for r in mine) for k in ks}
        entry["mrr"] = _mean(r["mrr"] for r in mine)
        entry["misfire_rate"] = _mean(r["misfire"] for r in mine)
        entry |= {f"appropriate_at_{k}": _mean(r[f"appropriate_at_{k}"] for r in mine) for k in ks}
        entry["threshold"] = mine[0]["threshold"]
        entry["natural_rate"] = round(mine[0]["natural_rate"], 4)
        entry["auroc"] = _auroc_of(mine)
        entry["auroc_proportional"] = _auroc_of([r for r in mine if r["stratum"] == "proportional"])
        by_system.append(entry)
        for tier in ("basic", "intermediate", "hard", "edge"):
            group = [r for r in mine if r["tier"] == tier]
            if group:
                by_tier.append({"system": system, "tier": tier, "probes": len(group),
                                "mrr": _mean(r["mrr"] for r in group)})
    bm25 = [e for e in by_system if e["system"] == "bm25"]
    return {"by_system": by_system, "by_tier": by_tier,
            "detectability_auroc": bm25[0]["auroc"] if bm25 else None,
            "detectability_auroc_proportional": bm25[0]["auroc_proportional"] if bm25 else None}


def _auroc_of(rows: list[dict]) -> float | None:
    """The rounded AUROC of the rows' top-1 scores for memory_need (None without scores or with one class)."""
    scored = [r for r in rows if r["top1_score"] is not None]
    value = auroc([r["top1_score"] for r in scored], [r["memory_need"] for r in scored]) if scored else None
    return None if value is None else round(value, 4)


# --- the reconstruction track ---------------------------------------------------------------------------------

def parse_predictions(lines: Iterable[str], source: str = "predictions") -> list[dict]:
    """Prediction rows from JSONL text: objects with string persona_id, subject, attribute and value, optionally
    temporality and evidence_turn_ids; ValueError naming the line and the problem otherwise. Blank lines skipped."""
    out = []
    try:
        for n, row in iter_jsonl(lines):
            if not isinstance(row, dict):
                raise ValueError(f"{source} line {n}: expected an object with {', '.join(PREDICTION_KEYS)}")
            out.append(_prediction(row, f"{source} line {n}"))
    except JSONLError as exc:
        raise ValueError(f"{source} line {exc.lineno}: not JSON ({exc.msg})") from None
    return out


def _prediction(row: dict, where: str) -> dict:
    """One checked prediction row (ValueError starting with `where` naming the bad field)."""
    for key in PREDICTION_KEYS:
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise ValueError(f"{where}: field {key!r} must be a non-empty string")
    out = {k: row[k] for k in PREDICTION_KEYS}
    if row.get("temporality") is not None:
        if row["temporality"] not in TEMPORALITIES:
            raise ValueError(f"{where}: field 'temporality' must be one of {', '.join(TEMPORALITIES)}")
        out["temporality"] = row["temporality"]
    if row.get("evidence_turn_ids") is not None:
        ids = row["evidence_turn_ids"]
        if not isinstance(ids, list) or not all(isinstance(i, str) and i.strip() for i in ids):
            raise ValueError(f"{where}: field 'evidence_turn_ids' must be a list of turn id strings")
        out["evidence_turn_ids"] = list(ids)
    return out


def predict(predictor: str, claims: Sequence[ProfileClaim], facts: Sequence[Fact] = (),
            turns: Sequence[Turn] = ()) -> list[dict]:
    """The rows a built-in predictor gives (module docstring)."""
    if predictor not in PREDICTORS:
        raise ValueError(f"unknown predictor {predictor!r} (choose from {', '.join(PREDICTORS)})")
    if predictor == "empty":
        return []
    rows = [{"persona_id": c.persona_id, "subject": c.subject, "attribute": c.attribute, "value": c.value,
             "temporality": c.temporality, "evidence_turn_ids": list(c.evidence_turn_ids)} for c in claims]
    if predictor == "gold":
        return rows
    told: dict[str, list[str]] = defaultdict(list)
    for t in sorted(turns, key=lambda t: (t.timestamp, t.turn_id)):
        if t.role == "user":
            for f in t.fact_ids:
                told[f].append(t.turn_id)
    first: dict[tuple, Fact] = {}
    for f in sorted(facts, key=lambda f: (f.valid_from, f.fact_id)):
        if f.fact_id in told:
            first.setdefault((f.persona_id, f.subject, f.attribute), f)
    out = []
    for r, c in zip(rows, claims, strict=True):
        f = first.get((c.persona_id, c.subject, c.attribute))
        out.append((r | {"value": f.value, "evidence_turn_ids": told[f.fact_id]} if f else r) | {"temporality": None})
    return out


def _field(subject: str, attribute: str, value: str) -> tuple[str, str, str]:
    """The key a claim or prediction is matched on: (normalized subject, attribute, normalized value)."""
    return normalize(subject), attribute.strip(), normalize(value)


def _gold_fields(claims: Sequence[ProfileClaim]) -> tuple[dict[str, dict[tuple, dict]], dict[tuple, str]]:
    """persona -> field -> {slot, temporality, evidence} (the first claim by id; evidence of all its claims),
    and (persona, subject, attribute) -> slot."""
    gold: dict[str, dict[tuple, dict]] = defaultdict(dict)
    slot_of: dict[tuple, str] = {}
    for c in sorted(claims, key=lambda c: c.claim_id):
        entry = gold[c.persona_id].setdefault(_field(c.subject, c.attribute, c.value),
                                              {"slot": c.slot, "temporality": c.temporality, "evidence": set()})
        entry["evidence"] |= set(c.evidence_turn_ids)
        slot_of.setdefault((c.persona_id, *_field(c.subject, c.attribute, "")[:2]), c.slot)
    return gold, slot_of


def _predicted_fields(predictions: Sequence[dict]) -> dict[str, dict[tuple, dict]]:
    """persona -> field -> {temporality: the first given or None, evidence: the union given or None}."""
    pred: dict[str, dict[tuple, dict]] = defaultdict(dict)
    for p in predictions:
        entry = pred[p["persona_id"]].setdefault(_field(p["subject"], p["attribute"], p["value"]),
                                                 {"temporality": None, "evidence": None})
        if entry["temporality"] is None:
            entry["temporality"] = p.get("temporality")
        if p.get("evidence_turn_ids"):
            entry["evidence"] = (entry["evidence"] or set()) | set(p["evidence_turn_ids"])
    return pred


def _counts(gold: dict[tuple, dict], pred: dict[tuple, dict]) -> dict:
    """Field counts, matches, and the temporality and evidence checks on the matched fields, with P/R/F1."""
    matched = set(gold) & set(pred)
    timed = [f for f in matched if pred[f]["temporality"] is not None]
    cited = [f for f in matched if pred[f]["evidence"]]
    out = {"gold": len(gold), "predicted": len(pred), "matched": len(matched), "temporality_scored": len(timed),
           "temporality_correct": sum(pred[f]["temporality"] == gold[f]["temporality"] for f in timed),
           "evidence_scored": len(cited), "evidence_hit": sum(bool(pred[f]["evidence"] & gold[f]["evidence"])
                                                               for f in cited)}
    return out | prf(len(matched), len(pred), len(gold))


def reconstruction_rows(claims: Sequence[ProfileClaim], predictions: Sequence[dict],
                        personas: Sequence[str] = ()) -> list[dict]:
    """One row per persona and one per (persona, slot): gold, predicted and matched fields with P/R/F1 and the
    temporality and evidence counts. Predictions for a persona outside `personas` and the claims raise ValueError."""
    known = set(personas) | {c.persona_id for c in claims}
    stray = sorted({p["persona_id"] for p in predictions} - known)
    if stray:
        raise ValueError(f"predictions name persona_id {stray[0]!r}, which is not in the release")
    gold, slot_of = _gold_fields(claims)
    pred = _predicted_fields(predictions)
    rows = []
    for pid in sorted(known):
        g, pr = gold.get(pid, {}), pred.get(pid, {})
        rows.append({"persona_id": pid, "slot": "all"} | _counts(g, pr))
        pred_slot = {f: slot_of.get((pid, *f[:2]), "unmapped") for f in pr}
        for slot in sorted({e["slot"] for e in g.values()} | set(pred_slot.values())):
            gs = {f: e for f, e in g.items() if e["slot"] == slot}
            ps = {f: e for f, e in pr.items() if pred_slot[f] == slot}
            rows.append({"persona_id": pid, "slot": slot} | _counts(gs, ps))
    return rows


def _totals(group: list[dict]) -> dict:
    """Summed counts with micro P/R/F1, temporality accuracy and evidence hit rate (None when nothing scored)."""
    t = {k: sum(r[k] for r in group) for k in COUNTS}
    t |= {k: round(v, 4) for k, v in prf(t["matched"], t["predicted"], t["gold"]).items()}
    t["temporality_accuracy"] = (round(t["temporality_correct"] / t["temporality_scored"], 4)
                                 if t["temporality_scored"] else None)
    t["evidence_hit_rate"] = round(t["evidence_hit"] / t["evidence_scored"], 4) if t["evidence_scored"] else None
    return t


def reconstruction_summary(rows: list[dict]) -> dict:
    """Micro-averaged P/R/F1 over personas, temporality accuracy, evidence hit rate, the mean per-persona F1,
    and the same per slot."""
    per = [r for r in rows if r["slot"] == "all"]
    totals = _totals(per)
    micro = {k: totals.pop(k) for k in ("precision", "recall", "f1")}
    by_slot = [{"slot": slot} | _totals([r for r in rows if r["slot"] == slot])
               for slot in sorted({r["slot"] for r in rows} - {"all"})]
    return {"personas": len(per), **totals, "micro": micro, "macro_f1": _mean(r["f1"] for r in per),
            "by_slot": by_slot}


# --- the report -----------------------------------------------------------------------------------------------

def _fmt(value) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _table(rows: list[dict], columns: Sequence[str]) -> list[str]:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    return lines + ["| " + " | ".join(_fmt(r.get(c)) for c in columns) + " |" for r in rows]


def markdown(track: str, summary: dict, title: str, notes: Sequence[str] = ()) -> str:
    """The report of one companion track: notes, then its summary tables."""
    lines = [f"# {title}", ""] + [f"- {n}" for n in notes] + [""]
    if track == "chat":
        ks = summary["ks"]
        cols = ["system", "probes", "scored_probes"] + [f"hit_at_{k}" for k in ks] + ["mrr", "misfire_rate"]
        cols += [f"appropriate_at_{k}" for k in ks] + ["threshold", "auroc", "auroc_proportional"]
        lines += ["## Chat track", "", "Detectability (AUROC of the BM25 top-1 score for memory need): "
                  f"{_fmt(summary['detectability_auroc_proportional'])} on the proportional stratum (natural rate: "
                  f"the honest figure), {_fmt(summary['detectability_auroc'])} on all probes (the enriched and "
                  "abstention strata tilt it).", ""]
        lines += _table(summary["by_system"], cols) + ["", "### MRR by tier", ""]
        lines += _table(summary["by_tier"], ["system", "tier", "probes", "mrr"])
    else:
        micro = summary["micro"]
        lines += ["## Reconstruction track", "", f"Predictor `{summary['predictor']}` over {summary['personas']} "
                  f"personas: micro precision {_fmt(micro['precision'])}, recall {_fmt(micro['recall'])}, "
                  f"F1 {_fmt(micro['f1'])}; mean per-persona F1 {_fmt(summary['macro_f1'])}. Fields are "
                  "(subject, attribute, normalized value).", "",
                  f"On matched fields: temporality accuracy {_fmt(summary['temporality_accuracy'])} "
                  f"({summary['temporality_scored']} fields gave one), evidence hit rate "
                  f"{_fmt(summary['evidence_hit_rate'])} ({summary['evidence_scored']} gave evidence ids). "
                  "first_seen, last_seen and confidence are not scored.", ""]
        lines += _table(summary["by_slot"], ["slot", "gold", "predicted", "matched", "precision", "recall", "f1",
                                             "temporality_accuracy", "evidence_hit_rate"])
    return "\n".join(lines) + "\n"
