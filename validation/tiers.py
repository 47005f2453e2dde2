"""The tiers suite: the length tiers of a release hold what they claim (tasks/tiers/, README "Length tiers").

- tokens: a padded tier's history holds its budget within `TOKEN_TOLERANCE` (2 percent); a cut tier's never more
  than its budget; every tier's tokens are the sum of its items';
- evidence: every evidence item a tier question lists lies in the tier's history, and every evidence fact of it has
  an item there (0 outside the window);
- collisions: no haystack item holds a name of the persona's world or questions, or its own persona's or family's
  name (the texts are scanned again here, from the landed turns and task chats);
- answers: no tier question keeps an answer the cut changed: an all-instances question (a count, a first or last,
  an absence) sees every instance it ranges over, or is a count re-derived to the instances the tier keeps.

With no `[release] tiers` the frames are empty and the suite passes.
"""

from __future__ import annotations

import json
from collections import defaultdict

import duckdb
import pandas as pd

from schemas.config import BuildConfig
from validation.frames import query, stream
from validation.suites import Suite, between, factory

TOKEN_TOLERANCE = 0.02

TOKENS_SQL = """
select t.tier, t.persona_id, t.tier || '/' || t.persona_id as ref, t.mode, t.budget, t.tokens,
       coalesce(h.tokens, 0) as item_tokens,
       case when t.mode = 'padded' then abs(t.tokens - t.budget) / t.budget end as off,
       t.tokens - t.budget as over, abs(t.tokens - coalesce(h.tokens, 0)) as mismatch
from {tiers} t left join (select tier, persona_id, sum(tokens) as tokens from {tier_history}
                          where run_id = $run_id group by all) h using (tier, persona_id)
where t.run_id = $run_id order by t.tier, t.persona_id
"""

CONTAINERS_SQL = """
select turn_id as evidence_id, session_id as item_id from {turns} where run_id = $run_id
union all select chunk_id, doc_id from {chunks} where run_id = $run_id
"""

KEPT_SQL = "select tier, persona_id, item_id from {tier_history} where run_id = $run_id and source = 'own'"


def tokens_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per (tier, persona): budget, tokens, `off` (padded: share off the budget), `over` (tokens past the
    budget) and `mismatch` (tokens the tier claims beyond its items')."""
    return query(con, TOKENS_SQL, run_id, "tiers", "tier_history")


def _kept(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[tuple[str, str], set[str]]:
    kept: dict[tuple[str, str], set[str]] = defaultdict(set)
    for tier, pid, item in stream(con, KEPT_SQL, run_id, "tier_history"):
        kept[(tier, pid)].add(item)
    return kept


def _carriers(con: duckdb.DuckDBPyConnection, run_id: str, holder: dict[str, str]) -> dict[str, set[str]]:
    """Per fact, the items (sessions, documents) that show it: a counting mention or an evidence row."""
    carriers: dict[str, set[str]] = defaultdict(set)
    for fid, eid in stream(con, "select fact_id, evidence_id from {fact_mentions} where run_id = $run_id and counts",
                           run_id, "fact_mentions"):
        carriers[fid].add(holder.get(eid, ""))
    for fid, eid in stream(con, "select fact_id, evidence_id from {question_evidence} where run_id = $run_id and "
                           "fact_id is not null", run_id, "question_evidence"):
        carriers[fid].add(holder.get(eid, ""))
    return carriers


def evidence_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per tier question: `outside`, its listed evidence items outside the tier's history plus its evidence
    facts with no item there."""
    holder = dict(stream(con, CONTAINERS_SQL, run_id, "turns", "chunks"))
    kept = _kept(con, run_id)
    carriers = _carriers(con, run_id, holder)
    groups: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for qid, eid, fid in stream(con, "select question_id, evidence_id, fact_id from {question_evidence} "
                                "where run_id = $run_id", run_id, "question_evidence"):
        groups[qid][fid or eid] |= {holder.get(eid, "")} | carriers.get(fid, set())
    rows = []
    for tier, qid, pid, listed, rederived in stream(
            con, "select tier, question_id, persona_id, evidence_ids, rederived from {tier_questions} "
            "where run_id = $run_id order by all", run_id, "tier_questions"):
        items = kept[(tier, pid)]
        outside = sum(holder.get(e) not in items for e in listed or ())
        if not rederived:  # a re-derived count rests on the instances the tier keeps (the answers frame checks it)
            outside += sum(not (g & items) for g in groups[qid].values())
        rows.append((f"{tier}/{qid}", outside))
    return pd.DataFrame(rows, columns=["ref", "outside"]).astype({"outside": "int64"})


def collision_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per haystack item: `names`, how many colliding names its text holds."""
    from tasks.tiers.model import collisions, name_pattern
    from warehouse.tiers import vocabularies

    haystack = list(stream(con, "select tier, persona_id, item_id, kind, origin_persona_id, turn_ids from "
                           "{tier_history} where run_id = $run_id and source = 'haystack' order by all", run_id,
                           "tier_history"))
    if not haystack:
        return pd.DataFrame({"ref": pd.Series(dtype="str"), "names": pd.Series(dtype="int64"),
                             "found": pd.Series(dtype="str")})
    names = vocabularies(con, run_id)
    mine = {pid: name_pattern(v) for pid, v in names["vocabulary"].items()}
    lender = {pid: name_pattern(v) for pid, v in names["own"].items()}
    texts: dict[str, list[str]] = defaultdict(list)  # only the borrowed sessions' and lifted chats' turns are read
    for sid, text in stream(con, "select session_id, text from {turns} where run_id = $run_id and session_id in "
                            "(select item_id from {tier_history} where run_id = $run_id and source = 'haystack' "
                            "and kind = 'session') order by turn_id", run_id, "turns", "tier_history"):
        texts[sid].append(text or "")
    turn_text = {}
    for tid, text in stream(con, "select turn_id, text from {turns} where run_id = $run_id and turn_id in "
                            "(select unnest(turn_ids) from {tier_history} where run_id = $run_id and kind = 'chat')",
                            run_id, "turns", "tier_history"):
        turn_text[tid] = text or ""
    chats: dict[str, list[str]] = defaultdict(list)
    for cid, text in stream(con, "select chat_id, text from {tier_chats} where run_id = $run_id order by chat_id, "
                            "ordinal", run_id, "tier_chats"):
        chats[cid].append(text or "")
    rows = []
    for tier, pid, item, kind, origin, turn_ids in haystack:
        text = "\n".join(texts.get(item, []) if kind == "session" else chats.get(item, []) if kind == "task_chat"
                         else [turn_text.get(t, "") for t in turn_ids or ()])
        found = collisions(text, mine.get(pid)) + collisions(text, lender.get(origin))
        rows.append((f"{tier}/{pid}/{item}", len(found), ", ".join(found[:5])))
    return pd.DataFrame(rows, columns=["ref", "names", "found"]).astype({"names": "int64"})


def answers_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per tier question of an all-instances question: `stale` is 1 when its answer is not what the tier's
    history gives (an instance out of the history and the answer not re-counted to those left), else 0."""
    holder = dict(stream(con, CONTAINERS_SQL, run_id, "turns", "chunks"))
    carriers = _carriers(con, run_id, holder)
    asked = {qid: (answer, atype, json.loads(d) if isinstance(d, str) else d or {}) for qid, answer, atype, d in
             stream(con, "select question_id, answer, answer_type, derivation from {questions} "
                    "where run_id = $run_id", run_id, "questions")}
    kept = _kept(con, run_id)
    rows = []
    for tier, qid, pid, answer, rederived in stream(
            con, "select tier, question_id, persona_id, answer, rederived from {tier_questions} "
            "where run_id = $run_id order by all", run_id, "tier_questions"):
        gold, atype, d = asked.get(qid, ("", "", {}))
        units = [carriers.get(f, set()) for f in d.get("fact_ids") or ()] + [{doc} for doc in d.get("doc_ids") or ()]
        if not d.get("all_instances") or not units:
            rows.append((f"{tier}/{qid}", int(answer != gold or bool(rederived)), gold, answer))
            continue
        seen = sum(bool(u & kept[(tier, pid)]) for u in units)
        if seen == len(units):
            expected = gold
        elif atype == "short" and gold.isdigit() and int(gold) == len(units) and seen:
            expected = str(seen)
        else:
            expected = None
        rows.append((f"{tier}/{qid}", int(expected is None or answer != expected), expected or "(not in tier)",
                     answer))
    return pd.DataFrame(rows, columns=["ref", "stale", "expected", "answer"]).astype({"stale": "int64"})


@factory("tiers")
def tiers_suite(config: BuildConfig) -> Suite:
    """The four tier checks (empty frames, so passing, when the config sets no tiers)."""
    return Suite(
        name="tiers",
        frames={"tier_tokens": tokens_frame, "tier_evidence": evidence_frame, "tier_collisions": collision_frame,
                "tier_answers": answers_frame},
        checks=(
            between("tiers.padded tier within 2% of its budget", "tier_tokens", "off", "ref",
                    f"a padded tier's history is more than {TOKEN_TOLERANCE:.0%} off its budget (too little "
                    "haystack that collides with nothing)", high=TOKEN_TOLERANCE),
            between("tiers.cut tier within its budget", "tier_tokens", "over", "ref",
                    "a cut tier's history holds more tokens than its budget", high=0),
            between("tiers.tokens are the items' tokens", "tier_tokens", "mismatch", "ref",
                    "a tier's tokens differ from the sum of its history's items", high=0),
            between("tiers.no evidence outside the window", "tier_evidence", "outside", "ref",
                    "a tier question's evidence lies outside the tier's history", high=0),
            between("tiers.no name collisions from the haystack", "tier_collisions", "names", "ref",
                    "a haystack item names someone or something of the persona's world or questions", high=0),
            between("tiers.no answer changed by the cut", "tier_answers", "stale", "ref",
                    "a tier question keeps an answer its tier's history does not give", high=0),
        ),
    )
