"""The companion suite (issue 12): chat probes cite resolving, earlier ids; windows, tiers, categories and strata
recompute from the lists; probes are verbatim user turns; claims cite user turns of their persona; every persona
has every portrait slot.

Frames read ids, timestamps, sessions and facts only; the verbatim check compares texts inside DuckDB, so no
turn text reaches pandas. The rules recomputed here are tasks/companion's documented ones:
- recent window of a probe: the `window` turns just before it in its session (session order: timestamp, turn id);
- memory_need: some required episode turn; cold_open: the session's first user turn with no required fact;
- told change (tasks/memory_need.told_changes): two required facts old, new of the same subject and attribute
  with different values (equal ignoring case and surrounding blanks is the same value), old ended by the probe's
  persona-local date (valid_to <= that date), new begun after old and by that date;
- tier: edge when a told change's new fact is not among the facts the probe refers to (fact_ids, paraphrase_ids):
  the change was told earlier; else basic without required episodes; else hard when they span two or more
  sessions or the earliest lies more than 30 days before the probe; else intermediate;
- category: no_memory without required facts; recent_followup without required episodes; state_update when a
  told change's new fact is among the facts the probe refers to; profile_grounded when every required fact is a
  baseline fact (event `...-e0000`); else episodic_callback.
- each required recent or episode turn refers to a required fact; each claim's evidence turn carries (fact_ids)
  one of the claim's facts (claims without facts, e.g. communication style, cite any user turns).
When companion is disabled (`stages.companion.enabled = false`) the suite checks nothing; enabled, a run without
probes fails "probes present" and every persona of the run must have every portrait slot.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

import duckdb
import pandas as pd

from schemas.companion import PORTRAIT_SLOTS
from schemas.config import BuildConfig
from validation.frames import query
from validation.suites import Check, Suite, all_true, between, factory

HARD_DAYS = 30.0
"""Required episodes farther than this before the probe make it hard."""

TURNS_SQL = """
select *, min(pos) filter (where role = 'user') over (partition by session_id) as first_user_pos from (
    select turn_id, session_id, persona_id, "timestamp", role, fact_ids, paraphrase_ids,
           row_number() over (partition by session_id order by "timestamp", turn_id) as pos
    from {turns} where run_id = $run_id
)
"""

PROBES_SQL = """
with t as ({turns_sql}),
tz as (select persona_id, coalesce(json_extract_string(profile, '$.identity.timezone'), 'UTC') as tz
       from {personas} where run_id = $run_id)
select p.probe_id, p.persona_id, p.turn_id, p.session_id, p.probe_time, p.stratum, p.memory_need, p.tier,
       p.category, p.window, p.required_recent, p.required_episodes, p.required_facts, p.cold_open,
       length(trim(coalesce(p.gold_reply, ''))) > 0 as has_reply, p.distance_days,
       t.turn_id is not null as turn_found, t.pos, full_t.fact_ids as turn_fact_ids,
       full_t.paraphrase_ids as turn_paraphrase_ids,
       coalesce(cast(json_extract_string(full_t.time_refs, '$[*].event_id') as varchar[]), [])
           as turn_ref_events,
       coalesce(t.role = 'user' and t.persona_id = p.persona_id and t.session_id = p.session_id
                and t."timestamp" = p.probe_time and full_t.text = p.text, false) as verbatim,
       coalesce(t.pos = t.first_user_pos, false) as opens_session,
       cast(timezone(coalesce(tz.tz, 'UTC'), p.probe_time) as date) as probe_date
from {chat_probes} as p
left join t on t.turn_id = p.turn_id
left join (select turn_id, text, fact_ids, paraphrase_ids, time_refs from {turns}
           where run_id = $run_id and turn_id in (select turn_id from {chat_probes} where run_id = $run_id)) as full_t
    on full_t.turn_id = p.turn_id
left join tz on tz.persona_id = p.persona_id
where p.run_id = $run_id
order by p.probe_id
"""

CITES_SQL = """
with t as ({turns_sql}),
p as (select * from ({probes_sql})),
cites as (
    select probe_id, 'recent' as kind, unnest(required_recent) as cited_id from p
    union all select probe_id, 'episode', unnest(required_episodes) from p
    union all select probe_id, 'fact', unnest(required_facts) from p
),
f as (select fact_id, any_value(persona_id) as persona_id, min(valid_from) as valid_from
      from {facts} where run_id = $run_id group by fact_id)
select c.probe_id, c.kind, c.cited_id,
       case when c.kind = 'fact' then f.fact_id is not null and f.persona_id = p.persona_id
            else ct.turn_id is not null and ct.persona_id = p.persona_id end as resolves,
       case when c.kind = 'fact' then coalesce(f.valid_from <= p.probe_date, false)
            else coalesce(ct."timestamp" < p.probe_time, false) end as precedes,
       coalesce(c.kind = 'fact' or (ct.session_id = p.session_id and ct.pos < p.pos
                                    and ct.pos >= p.pos - p.window), false) as in_window,
       coalesce(c.kind = 'fact' or list_has_any(list_concat(ct.fact_ids, ct.paraphrase_ids), p.required_facts),
                false) as carries_required,
       ct.session_id as cited_session, ct."timestamp" as cited_time
from cites as c
join p on p.probe_id = c.probe_id
left join t as ct on c.kind <> 'fact' and ct.turn_id = c.cited_id
left join f on c.kind = 'fact' and f.fact_id = c.cited_id
order by c.probe_id, c.kind, c.cited_id
"""

FACTS_SQL = """
select fact_id, persona_id, event_id, subject, attribute, value, valid_from, valid_to
from {facts} where run_id = $run_id and persona_id in (select persona_id from {chat_probes} where run_id = $run_id)
"""

CLAIMS_SQL = """
with t as (select turn_id, persona_id, role, "timestamp", fact_ids from {turns} where run_id = $run_id),
f as (select distinct fact_id, persona_id from {facts} where run_id = $run_id),
ev as (select claim_id, persona_id, fact_ids as claim_facts, unnest(evidence_turn_ids) as turn_id
       from {profile_claims} where run_id = $run_id),
ev_ok as (
    select ev.claim_id, bool_and(coalesce(t.role = 'user' and t.persona_id = ev.persona_id, false)) as ok,
           bool_and(coalesce(len(ev.claim_facts) = 0 or list_has_any(t.fact_ids, ev.claim_facts), false))
               as carries,
           min(t."timestamp") as first_t, max(t."timestamp") as last_t
    from ev left join t on t.turn_id = ev.turn_id group by ev.claim_id
),
fa as (select claim_id, persona_id, unnest(fact_ids) as fact_id from {profile_claims} where run_id = $run_id),
fa_ok as (
    select fa.claim_id, bool_and(coalesce(f.persona_id = fa.persona_id, false)) as ok
    from fa left join f on f.fact_id = fa.fact_id group by fa.claim_id
)
select c.claim_id, c.persona_id,
       coalesce(ev_ok.ok, false) as evidence_user_turns,
       coalesce(ev_ok.carries, false) as evidence_carries_fact,
       coalesce(fa_ok.ok, true) as facts_resolve,
       coalesce(c.first_seen = ev_ok.first_t and c.last_seen = ev_ok.last_t, false) as seen_span
from {profile_claims} as c
left join ev_ok on ev_ok.claim_id = c.claim_id
left join fa_ok on fa_ok.claim_id = c.claim_id
where c.run_id = $run_id
order by c.claim_id
"""

PORTRAIT_SQL = """
with who as (
    select persona_id from {chat_probes} where run_id = $run_id
    union select persona_id from {profile_claims} where run_id = $run_id
    union select persona_id from {persona_portraits} where run_id = $run_id
    union select persona_id from {personas} where run_id = $run_id and $all_personas
)
select who.persona_id,
       count(distinct s.slot) filter (where s.slot in ({slots})) as n_slots
from who left join {persona_portraits} as s on s.persona_id = who.persona_id and s.run_id = $run_id
group by who.persona_id order by who.persona_id
"""

PRESENCE_SQL = "select count(*) as n_probes from {chat_probes} where run_id = $run_id"

_TABLES = ("chat_probes", "turns", "facts", "personas")


def _probes_sql() -> str:
    return PROBES_SQL.replace("{turns_sql}", TURNS_SQL)


def cites_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per id a probe cites: kind (recent, episode, fact), resolves, precedes, in_window,
    plus `window_ok` (recent ids inside the window, episode ids outside it)."""
    sql = CITES_SQL.replace("{turns_sql}", TURNS_SQL).replace("{probes_sql}", _probes_sql())
    df = query(con, sql, run_id, *_TABLES)
    df["window_ok"] = [
        kind == "fact" or (bool(w) if kind == "recent" else not bool(w))
        for kind, w in zip(df["kind"], df["in_window"], strict=True)
    ]
    df["cite"] = df["probe_id"] + ":" + df["cited_id"]
    return df


def probe_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per probe with its recomputed tier and category and a boolean per probe-level rule."""
    df = query(con, _probes_sql(), run_id, *_TABLES)
    cites = cites_frame(con, run_id)
    facts = query(con, FACTS_SQL, run_id, "facts", "chat_probes")
    rows = {r.fact_id: r for r in facts.itertuples(index=False)}
    episodes = {pid: grp for pid, grp in cites[cites["kind"] == "episode"].groupby("probe_id")}
    expected = [_expected(row, episodes.get(row["probe_id"]), rows) for _, row in df.iterrows()]
    df["expected_tier"] = [e[0] for e in expected]
    df["expected_category"] = [e[1] for e in expected]
    df["tier_ok"] = df["tier"] == df["expected_tier"]
    df["category_ok"] = df["category"] == df["expected_category"]
    df["reply_ok"] = df["cold_open"] | df["has_reply"]
    df["strata_ok"] = [_stratum_ok(r) for _, r in df.iterrows()]
    df["cold_open_ok"] = [bool(r["cold_open"]) == (bool(r["opens_session"]) and not _n(r, "required_facts"))
                          for _, r in df.iterrows()]
    drop = ["required_recent", "required_episodes", "required_facts", "turn_fact_ids", "turn_paraphrase_ids",
            "turn_ref_events"]
    return df.drop(columns=drop)


def _ids(value: Any) -> list[str]:
    return [] if value is None or (not hasattr(value, "__len__") and pd.isna(value)) else list(value)


def _n(row: Any, *cols: str) -> int:
    cols = cols or ("required_recent", "required_episodes", "required_facts")
    return sum(len(_ids(row[c])) for c in cols)


def _stratum_ok(row: Any) -> bool:
    """memory need <=> required episodes; abstention: nothing required; enriched: memory need."""
    need = bool(row["memory_need"])
    if need != bool(_n(row, "required_episodes")):
        return False
    if row["stratum"] == "abstention":
        return not need and _n(row) == 0
    if row["stratum"] == "enriched":
        return need
    return True


def _told_changes(facts: list[Any], day: dt.date) -> list[tuple[Any, Any]]:
    """(old, new) fact rows among `facts` forming a told change (module docstring)."""
    def same(a: Any, b: Any) -> bool:
        return str(a.value).strip().casefold() == str(b.value).strip().casefold()
    return [(old, new) for old in facts if not pd.isna(old.valid_to) and old.valid_to <= day
            for new in facts if (new.subject, new.attribute) == (old.subject, old.attribute) and not same(old, new)
            and old.valid_from < new.valid_from <= day]


def _expected(row: Any, episodes: pd.DataFrame | None, rows: dict[str, Any]) -> tuple[str, str]:
    """(tier, category) by the rules in the module docstring."""
    facts = _ids(row["required_facts"])
    refers = set(_ids(row["turn_fact_ids"])) | set(_ids(row["turn_paraphrase_ids"]))
    changes = _told_changes([rows[f] for f in facts if f in rows], row["probe_date"])
    if any(new.fact_id not in refers for _, new in changes):
        tier = "edge"
    elif episodes is None or episodes.empty:
        tier = "basic"
    else:
        far = row["probe_time"] - episodes["cited_time"].min() > dt.timedelta(days=HARD_DAYS)
        tier = "hard" if far or episodes["cited_session"].nunique() >= 2 else "intermediate"
    if not facts:
        category = "no_memory"
    elif not _n(row, "required_episodes"):
        category = "recent_followup"
    elif any(new.fact_id in refers for _, new in changes):
        category = "state_update"
    elif all(str(getattr(rows.get(f), "event_id", "")).endswith("-e0000") for f in facts):
        category = "profile_grounded"
    else:
        category = "episodic_callback"
    return tier, category


def claim_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row per claim: evidence_user_turns (every evidence id is a user turn of the persona), facts_resolve
    (every fact id is a fact of the persona), seen_span (first/last_seen = min/max evidence timestamps)."""
    return query(con, CLAIMS_SQL, run_id, "profile_claims", "turns", "facts")


def portrait_frame(con: duckdb.DuckDBPyConnection, run_id: str, all_personas: bool = True) -> pd.DataFrame:
    """One row per persona (every persona of the run when `all_personas`, else those with companion rows) with
    n_slots: how many of the fixed portrait slots it has."""
    slots = ", ".join(f"'{s}'" for s in PORTRAIT_SLOTS)
    sql = PORTRAIT_SQL.replace("{slots}", slots).replace("$all_personas", "true" if all_personas else "false")
    return query(con, sql, run_id, "chat_probes", "profile_claims", "persona_portraits", "personas")


def presence_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """One row: n_probes of the run."""
    return query(con, PRESENCE_SQL, run_id, "chat_probes")


def _c(name: str, frame: str, column: str, sample: str, why: str = "") -> Check:
    return all_true(f"companion.{name}", frame, column, sample, why)


CITE_CHECKS = (
    _c("cited ids resolve in the persona", "cites", "resolves", "cite"),
    _c("cited ids precede the probe", "cites", "precedes", "cite"),
    _c("recent ids inside and episode ids outside the window", "cites", "window_ok", "cite"),
    _c("cited turns refer to a required fact", "cites", "carries_required", "cite"),
)
PROBE_CHECKS = (
    _c("probe is a verbatim user turn", "probes", "verbatim", "probe_id"),
    _c("gold reply unless cold open", "probes", "reply_ok", "probe_id"),
    _c("cold open opens its session and needs nothing", "probes", "cold_open_ok", "probe_id"),
    _c("tier recomputes", "probes", "tier_ok", "probe_id"),
    _c("category recomputes", "probes", "category_ok", "probe_id"),
    _c("strata consistent", "probes", "strata_ok", "probe_id"),
)
CLAIM_CHECKS = (
    _c("claim evidence is user turns of the persona", "claims", "evidence_user_turns", "claim_id"),
    _c("claim evidence carries the claim's fact", "claims", "evidence_carries_fact", "claim_id"),
    _c("claim fact ids resolve", "claims", "facts_resolve", "claim_id"),
    _c("claim first/last seen span its evidence", "claims", "seen_span", "claim_id"),
)
PORTRAIT_CHECK = between("companion.every persona has every portrait slot", "portraits", "n_slots", "persona_id",
                         low=len(PORTRAIT_SLOTS), high=len(PORTRAIT_SLOTS))
PRESENCE_CHECK = between("companion.probes present", "presence", "n_probes", None,
                         "companion is enabled but the run has no chat probes", low=1)


@factory("companion")
def companion_suite(config: BuildConfig) -> Suite:
    """Every check when companion is enabled (zero probes fails); none when it is disabled."""
    enabled = config.stages.companion.enabled
    return Suite(
        name="companion",
        frames={"cites": cites_frame, "probes": probe_frame, "claims": claim_frame, "presence": presence_frame,
                "portraits": functools.partial(portrait_frame, all_personas=True)},
        checks=(CITE_CHECKS + PROBE_CHECKS + CLAIM_CHECKS + (PORTRAIT_CHECK, PRESENCE_CHECK)) if enabled else (),
    )
