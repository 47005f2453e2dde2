"""External generators over documents: attachment_fact_retrieval, table_reasoning, table_aggregation and
structural_navigation (see the package docstring for what each asks)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from tasks.common.facttext import (
    carries_first,
    fits_slot,
)
from tasks.common.timeutil import human_date
from tasks.questions.base import Candidate, QContext, Ref
from tasks.questions.generators.kit import (
    NOISE_KINDS,
    ORDINALS,
    DocView,
    Table,
    asking,
    attribute_of,
    body_rows,
    column_pool,
    dedupe,
    doc_view,
    heading_chunks,
    known_tables,
    leaks,
    number,
    number_distractors,
    receipt_details,
    registered,
    row_chunks,
    row_label,
    said,
    sections,
    show,
    table_kind,
    value_pool,
)
from tasks.sources.reports import cell

CELLS_PER_TABLE = 4
"""table_reasoning: at most this many cells asked per table (seeded choice), so no report floods the pool."""


# -------------------------------------------------------------------------------- attachment_fact_retrieval


@registered("external", "attachment_fact_retrieval")
def attachment_fact_retrieval(ctx: QContext) -> list[Candidate]:
    view, out = doc_view(ctx), []
    for doc in view.docs:
        label = view.label(doc)
        if label is None:
            continue
        stated = Counter((ctx.facts[f].subject, ctx.facts[f].attribute) for f in doc.fact_ids if f in ctx.facts)
        for fid in doc.fact_ids:
            fact = ctx.facts.get(fid)
            chunks = view.chunks_carrying(doc, fact) if fact else []
            if not fact or not chunks or fact.valid_from > view.day(doc) or stated[(fact.subject, fact.attribute)] > 1:
                continue  # a document stating two values of one attribute does not answer "what is it?"
            if not fits_slot(fact.attribute, fact.value):
                continue  # "what is Samir's employer?" -> "unemployed"
            question = f"According to {label}, {asking(ctx, fact)}?"
            if leaks(question, fact.value) or any(leaks(question, form) for form in fact.surface_forms
                                                  if len(form) > 3):
                continue  # the label names what is asked ("which bill ..., according to 'sort out the boiler repair'")
            now = ctx.current(fact.subject, fact.attribute, ctx.day)
            stale = now is not None and now.value != fact.value
            reference = f"{label[:1].upper() + label[1:]} says that {said(ctx, fact)}."
            if stale:
                reference += f" (It has since changed to {now.value}.)"
            out.append(Candidate(
                "external", ("attachment_fact_retrieval",), question, fact.value, reference,
                f"external.attachment_fact_retrieval.{doc.source_type}",
                f"SELECT f.value FROM documents d JOIN facts f ON f.fact_id = ANY(d.fact_ids) "
                f"WHERE d.doc_id = '{doc.doc_id}' AND f.subject = '{fact.subject}' "
                f"AND f.attribute = '{fact.attribute}'",
                (fact.fact_id,),
                evidence=tuple(Ref("chunk", c.chunk_id, fact.fact_id) for c in chunks),
                distractors=value_pool(ctx, fact),
                priority=0 if stale else 1,
                extra={"doc_ids": [doc.doc_id], "document_value_superseded": stale},
            ))
    out += receipt_questions(view)
    return out


def receipt_questions(view: DocView) -> list[Candidate]:
    """The amount of a shop receipt, named by shop and order number."""
    receipts = [(d, r) for d in view.emails() if d.kind == "receipt" and (r := receipt_details(d))]
    orders = Counter(r[0] for _, r in receipts)
    amounts = [r[1] for _, r in receipts][::-1]
    out = []
    for doc, (order, amount) in receipts:
        if orders[order] != 1:
            continue
        shop, when = view.who(doc.sender), human_date(view.day(doc))
        owner = f"{shop}'" if shop.endswith("s") else f"{shop}'s"
        question = f"According to {owner} receipt for order {order}, what was the order total?"
        out.append(Candidate(
            "external", ("attachment_fact_retrieval",), question, amount,
            f"The receipt {shop} sent on {when} confirms order {order} for {amount}.",
            "external.attachment_fact_retrieval.receipt",
            f"SELECT regexp_extract(body, 'order {order} for ([0-9.]+)') FROM documents "
            f"WHERE doc_id = '{doc.doc_id}'",
            (), evidence=view.chunks_with(doc, order, amount),
            distractors=dedupe(amounts + [f"{float(amount) * k:.2f}" for k in (1.1, 0.9, 1.25, 0.75, 2, 0.5)], amount),
            priority=2,
            extra={"doc_ids": [doc.doc_id]},
        ))
    return out


# ------------------------------------------------------------------------------------------ table_reasoning


@registered("external", "table_reasoning")
def table_reasoning(ctx: QContext) -> list[Candidate]:
    view = doc_view(ctx)
    tables, out = known_tables(view), []
    for t in tables:
        rows, cols = body_rows(t.table), t.table["columns"]
        cells = [(r, i) for r in rows for i in t.numeric_columns() if cols[i] in t.kind.cells]
        rng = ctx.rng(f"table_reasoning:{t.doc.doc_id}:{t.index}")
        rng.shuffle(cells)
        kept = 0
        for row, i in cells:
            answer = cell(row[i])
            phrase = t.kind.cells[cols[i]].format(row=row_label(t.table, row[0]))
            question = f"In {t.name}, what is {phrase}?"
            chunks = row_chunks(view.chunks.get(t.doc.doc_id, []), row)
            if leaks(question, answer) or kept >= CELLS_PER_TABLE:
                continue
            kept += 1
            out.append(Candidate(
                "external", ("table_reasoning",), question, answer,
                f"In {t.name}, the row '{row[0]}' has {cols[i]} = {answer}.",
                f"external.table_reasoning.{t.doc.kind or 'table'}",
                t.query(f"row where {cols[0]} = '{row[0]}', column '{cols[i]}'"),
                (), evidence=tuple(Ref("chunk", c.chunk_id) for c in chunks),
                distractors=dedupe(column_pool(tables, t, i), answer),
                extra={"doc_ids": [t.doc.doc_id], "row": str(row[0]), "column": str(cols[i])},
            ))
    return out


# ---------------------------------------------------------------------------------------- table_aggregation


@registered("external", "table_aggregation")
def table_aggregation(ctx: QContext) -> list[Candidate]:
    view = doc_view(ctx)
    tables, out = known_tables(view), []
    for t in tables:
        rows, cols = body_rows(t.table), t.table["columns"]
        if len(rows) < 3:
            continue
        chunks = view.chunks.get(t.doc.doc_id, [])
        every = tuple(Ref("chunk", c.chunk_id) for c in chunks if any(c in row_chunks(chunks, r) for r in rows))
        labels = [row_label(t.table, r[0]) for r in rows]

        def add(variant: str, question: str, answer: str, reference: str, query: str, distractors: Iterable[str],
                evidence: tuple[Ref, ...] = every, priority: int = 1, t: Table = t, cols: list = cols) -> None:
            if leaks(question, answer):
                return
            out.append(Candidate(
                "external", ("table_aggregation",), question, answer, reference,
                f"external.table_aggregation.{variant}", t.query(query), (), evidence=evidence, all_instances=True,
                distractors=dedupe(distractors, answer), priority=priority,
                extra={"doc_ids": [t.doc.doc_id], "column": str(cols[0])},
            ))

        for i in t.numeric_columns():
            col = cols[i]
            phrase = t.kind.columns.get(col)
            if phrase is None:
                continue
            nums = [number(r[i]) for r in rows]
            signed = min(nums) < 0 < max(nums)  # "the lowest difference": the most negative, or the smallest gap?
            for word, pick in (("highest", max), ("lowest", min)):
                best = pick(nums)
                if nums.count(best) != 1:
                    continue
                said = ("largest positive" if word == "highest" else "most negative") if signed else word
                at = nums.index(best)
                add(f"{word}_row", f"In {t.name}, which {t.kind.noun} has the {said} {phrase}?", labels[at],
                    f"{labels[at]}, with {phrase} {show(best)} ({said} of {len(rows)} rows).",
                    f"argmax/argmin of '{col}' over rows without Total", labels)
            if col in t.kind.over:
                what, limit = t.kind.over[col]
                hits = [lab for lab, v in zip(labels, nums, strict=True) if v > limit]
                n = len(hits)
                add("count_over", f"In {t.name}, {what}", str(n),
                    f"{n} of the {len(rows)} rows" + (": " + ", ".join(hits) if hits else "") + ".",
                    f"COUNT rows where '{col}' > {limit}", number_distractors(n))
            rng = ctx.rng(f"table_aggregation:{t.doc.doc_id}:{t.index}:{col}")
            a, b = sorted(rng.sample(range(len(rows)), 2))
            total = nums[a] + nums[b]
            pair = tuple(Ref("chunk", c.chunk_id) for c in chunks
                         if c in row_chunks(chunks, rows[a]) or c in row_chunks(chunks, rows[b]))
            step = 1 if all(v.is_integer() and abs(v) < 20 for v in nums) else 10
            pool = [nums[a] + nums[k] for k in range(len(rows)) if k not in (a, b)]
            pool += [total + d * step for d in (1, -1, 2, -2, 3, -3)]
            if min(nums) >= 0:
                pool = [v for v in pool if v >= 0]
            add("pair_sum", f"In {t.name}, what is the {phrase} of '{labels[a]}' and '{labels[b]}' combined?",
                show(total), f"{show(nums[a])} + {show(nums[b])} = {show(total)}.",
                f"SUM('{col}') where {cols[0]} IN ('{rows[a][0]}', '{rows[b][0]}')",
                [show(v) for v in pool], evidence=pair, priority=2)
        if t.kind.noun == "session":
            n = len(rows)
            add("count_rows", f"How many sessions does {t.name} list?", str(n),
                f"{n} sessions: " + ", ".join(labels) + ".", "COUNT rows without Total", number_distractors(n))
    return out


# ------------------------------------------------------------------------------------- structural_navigation


@registered("external", "structural_navigation")
def structural_navigation(ctx: QContext) -> list[Candidate]:
    view = doc_view(ctx)
    return section_of_fact(ctx, view) + nth_section(ctx, view) + revisions(ctx, view) + replies(ctx, view)


def section_of_fact(ctx: QContext, view: DocView) -> list[Candidate]:
    """Under which heading a report or journal states a fact."""
    out = []
    pool: dict[str, list[str]] = defaultdict(list)  # headings of other documents of the same kind, latest first
    for doc in reversed(view.docs):
        pool[doc.kind] += [h for h, _ in sections(doc) if h not in pool[doc.kind]]
    for doc in view.docs:
        label = view.label(doc)
        if label is None or doc.source_type == "email":
            continue
        secs = sections(doc)
        heads = [h for h, _ in secs]
        captions = {str(t.get("caption")) for t in doc.tables}
        for fid in doc.fact_ids:
            fact = ctx.facts.get(fid)
            if fact is None or not fits_slot(fact.attribute, fact.value):
                continue
            where = [h for h, texts in secs if any(carries_first(t, fact) for t in texts)]
            chunks = view.chunks_carrying(doc, fact)
            if len(where) != 1 or where[0] in captions or heads.count(where[0]) != 1 or not chunks:
                continue
            question = f"Under which heading of {label} is {attribute_of(ctx, fact)} mentioned?"
            if leaks(question, where[0]):
                continue
            out.append(Candidate(
                "external", ("structural_navigation",), question, where[0],
                f"In {label}, {attribute_of(ctx, fact)} ({fact.value}) is stated under the heading '{where[0]}'.",
                "external.structural_navigation.section_of_fact",
                f"SELECT section FROM chunks WHERE doc_id = '{doc.doc_id}' AND '{fact.fact_id}' = ANY(fact_ids)",
                (fact.fact_id,),
                evidence=tuple(Ref("chunk", c.chunk_id, fact.fact_id) for c in chunks)
                + tuple(Ref("chunk", c.chunk_id) for c in heading_chunks(view, doc, where[0]) if c not in chunks),
                distractors=dedupe(heads + sorted(captions) + pool[doc.kind], where[0]),
                priority=1 if len(set(heads) - captions) > 1 else 2, extra={"doc_ids": [doc.doc_id]},
            ))
    return out


def nth_section(ctx: QContext, view: DocView) -> list[Candidate]:
    """The heading of the Nth section of a report (one seeded position per report)."""
    out = []
    for doc in view.docs:
        label = view.label(doc)
        heads = [h for h, _ in sections(doc)]
        if label is None or doc.source_type != "report" or len(heads) < 3 or len(set(heads)) != len(heads):
            continue
        n = ctx.rng(f"nth_section:{doc.doc_id}").randrange(min(len(heads), len(ORDINALS)))
        chunks = heading_chunks(view, doc, heads[n])
        question = f"After its title, what is the heading of the {ORDINALS[n]} section of {label}?"
        if not chunks or leaks(question, heads[n]):
            continue
        out.append(Candidate(
            "external", ("structural_navigation",), question, heads[n],
            f"The sections of {label} are, in order: " + "; ".join(heads) + f". The {ORDINALS[n]} is '{heads[n]}'.",
            "external.structural_navigation.nth_section",
            f"SELECT heading FROM document_sections WHERE doc_id = '{doc.doc_id}' ORDER BY position "
            f"LIMIT 1 OFFSET {n}",
            (), evidence=tuple(Ref("chunk", c.chunk_id) for c in chunks),
            distractors=dedupe(heads, heads[n]), priority=2,
            extra={"doc_ids": [doc.doc_id], "position": n + 1},
        ))
    return out


def revisions(ctx: QContext, view: DocView) -> list[Candidate]:
    """Which row of a report's table a later version changed (version N against N-1)."""
    out = []
    revised = Counter(d.parent_doc_id for d in view.docs if d.parent_doc_id)
    for doc in view.docs:
        parent = view.by_id.get(doc.parent_doc_id or "")
        if parent is None or doc.source_type != "report" or not doc.tables or not parent.tables:
            continue
        old_label = view.label(parent)
        new, old = doc.tables[0], parent.tables[0]
        olds = {str(r[0]): r for r in body_rows(old)}
        changed = [r for r in body_rows(new) if str(r[0]) in olds and olds[str(r[0])] != r]
        if old_label is None or len(changed) != 1 or len(olds) != len(body_rows(new)) or revised[parent.doc_id] != 1:
            continue
        row, before = changed[0], olds[str(changed[0][0])]
        diffs = [f"{c} from {cell(a)} to {cell(b)}" for c, a, b in zip(new["columns"][1:], before[1:], row[1:],
                                                                      strict=False) if a != b]
        # the revision's own title may name the changed row, so it is named through its parent
        question = (f"{old_label[:1].upper() + old_label[1:]} was revised on {human_date(view.day(doc))} "
                    f"as version {doc.version}. Which {table_kind(new).noun} in its \"{old.get('caption', 'table')}\" "
                    "table did the revision change?")
        if leaks(question, str(row[0])):
            continue
        evidence = tuple(Ref("chunk", c.chunk_id) for d, r in ((parent, before), (doc, row))
                         for c in row_chunks(view.chunks.get(d.doc_id, []), r))
        out.append(Candidate(
            "external", ("structural_navigation",), question, str(row[0]),
            f"The revision changed the row '{row[0]}': " + "; ".join(diffs) + ".",
            "external.structural_navigation.revision",
            f"SELECT n.row_label FROM document_table_rows n JOIN document_table_rows o ON o.row_label = n.row_label "
            f"WHERE n.doc_id = '{doc.doc_id}' AND o.doc_id = '{parent.doc_id}' AND n.cells <> o.cells",
            (), evidence=evidence, distractors=dedupe([str(r[0]) for r in body_rows(new)], str(row[0])),
            priority=0, extra={"doc_ids": [parent.doc_id, doc.doc_id], "version": doc.version},
        ))
    return out


def replies(ctx: QContext, view: DocView) -> list[Candidate]:
    """Who replied to an email (thread structure)."""
    out = []
    related = [r.name for r in ctx.persona.profile.relationships]
    people = related + sorted({view.who(d.sender) for d in view.emails() if d.kind not in NOISE_KINDS})
    answered = Counter(d.parent_doc_id for d in view.emails() if d.parent_doc_id)
    for doc in view.emails():
        parent = view.by_id.get(doc.parent_doc_id or "")
        label = view.label(parent) if parent else None
        if parent is None or label is None or answered[parent.doc_id] != 1:
            continue
        who = view.who(doc.sender)
        question = f"Who replied to {label}?"
        if leaks(question, who) or who == view.first:
            continue
        out.append(Candidate(
            "external", ("structural_navigation",), question, who,
            f"{who} replied on {human_date(view.day(doc))} with \"{doc.title}\".",
            "external.structural_navigation.reply",
            f"SELECT sender FROM documents WHERE parent_doc_id = '{parent.doc_id}' AND source_type = 'email'",
            (), evidence=view.chunk_refs(doc)[:1], distractors=dedupe(people, who), priority=1,
            extra={"doc_ids": [parent.doc_id, doc.doc_id]},
        ))
    return out


# ------------------------------------------------------------------------------------- email_localization


