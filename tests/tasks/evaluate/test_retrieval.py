"""Memory baselines: every system ranks only history strictly before question_time; each system's own rule."""

import datetime as dt

import pytest

from schemas.corpus import Chunk, Turn
from schemas.qa import Question
from tasks.evaluate.retrieval import KS, SETTINGS, SYSTEMS, Item, Retriever, items_of

T0 = dt.datetime(2025, 3, 1, 9, 0, tzinfo=dt.UTC)
TEXTS = [
    "I adopted a golden retriever puppy named Biscuit last weekend.",
    "My sister Clara moved to Lisbon for a new engineering job.",
    "The quarterly budget review for the bakery is due on Friday.",
    "I started learning the cello with a teacher downtown.",
    "We repainted the kitchen a pale green colour.",
    "My running club meets every Tuesday at the river park.",
    "The dentist said my next cleaning is in six months.",
    "I finally finished reading the novel about the lighthouse keeper.",
]
FUTURE = "Biscuit the golden retriever won a prize at the dog show."


def turn(n: int, text: str, day: float) -> Turn:
    return Turn(turn_id=f"p0-t{n:02d}", session_id=f"p0-s{n:02d}", persona_id="p0",
                timestamp=T0 + dt.timedelta(days=day), role="user", text=text)


def chunk(n: int, text: str, day: float) -> Chunk:
    return Chunk(chunk_id=f"p0-d{n:02d}-c0", doc_id=f"p0-d{n:02d}", persona_id="p0",
                 created_at=T0 + dt.timedelta(days=day), ordinal=0, text=text, n_tokens=len(text.split()))


TURNS = [turn(n, text, n) for n, text in enumerate(TEXTS)]
TURNS += [turn(20, FUTURE, 20), turn(10, "Right at question time.", 10)]
CHUNKS = [chunk(0, "Invoice: dog food and a leash for the puppy, 54 euros.", 2.5),
          chunk(1, "Lisbon apartment lease signed by Clara Ortiz.", 12)]
QTIME = T0 + dt.timedelta(days=10)  # turn p0-t10 sits exactly at question time: not retrievable


def question(text: str = "What is the name of my dog?", qid: str = "q1", when: dt.datetime = QTIME) -> Question:
    return Question(question_id=qid, persona_id="p0", category="fact", characteristics=["multi_hop_traversal"],
                    question_time=when, question=text, answer="Biscuit", reference_answer="Biscuit",
                    answer_type="short", derivation={})


@pytest.fixture(scope="module")
def retrievers() -> dict[str, Retriever]:
    return {s: Retriever(items_of(TURNS, CHUNKS, s), seed=7) for s in SETTINGS}


def stamp(r: Retriever) -> dict[str, dt.datetime]:
    return {i.item_id: i.timestamp for i in r.items}


def test_items_of_settings_and_chunk_stamps():
    turns, chunks, both = (items_of(TURNS, CHUNKS, s) for s in SETTINGS)
    assert {i.kind for i in turns} == {"turn"} and len(turns) == len(TURNS)
    assert {i.kind for i in chunks} == {"chunk"} and len(chunks) == len(CHUNKS)
    assert len(both) == len(TURNS) + len(CHUNKS)
    assert [i.timestamp for i in both] == sorted(i.timestamp for i in both)
    assert next(i for i in chunks if i.item_id == "p0-d00-c0").timestamp == T0 + dt.timedelta(days=2.5)
    with pytest.raises(ValueError):
        items_of(TURNS, CHUNKS, "documents")


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("system", SYSTEMS)
def test_only_history_strictly_before_question_time(retrievers, system, setting):
    r = retrievers[setting]
    times = stamp(r)
    evidence = frozenset({"p0-t00", "p0-t20", "p0-t10", "p0-d00-c0", "p0-d01-c0"})  # some gold lies in the future
    for k in KS:
        ranked = r.rank(system, question(), evidence, k)
        assert all(times[i] < QTIME for i in ranked), (system, setting, ranked)
        assert {"p0-t20", "p0-t10", "p0-d01-c0"}.isdisjoint(ranked)
        assert len(ranked) == len(set(ranked))
        if system != "full_context":
            assert len(ranked) <= k
    # a question before any history sees nothing, whatever the system
    assert r.rank(system, question(when=T0 - dt.timedelta(hours=1)), evidence, 5) == []


def test_no_memory_and_recency(retrievers):
    r = retrievers["turns"]
    assert r.rank("no_memory", question(), frozenset(), 50) == []
    assert r.rank("recency", question(), frozenset(), 3) == ["p0-t07", "p0-t06", "p0-t05"]


def test_random_is_seeded_per_question(retrievers):
    r = retrievers["turns"]
    a = r.rank("random", question(), frozenset(), 5)
    assert a == r.rank("random", question(), frozenset(), 5) and len(a) == 5
    other = Retriever(items_of(TURNS, CHUNKS, "turns"), seed=8)
    draws = {tuple(other.rank("random", question(qid=f"q{n}"), frozenset(), 5)) for n in range(6)}
    assert len(draws) > 1
    assert sorted(r.rank("random", question(), frozenset(), 50)) == sorted(f"p0-t{n:02d}" for n in range(8))


def test_oracle_and_broken_oracle(retrievers):
    r = retrievers["both"]
    gold = frozenset({"p0-t01", "p0-d00-c0", "p0-t20"})
    ranked = r.rank("oracle", question(), gold, 5)
    assert ranked[:2] == ["p0-d00-c0", "p0-t01"]  # present evidence first, most recent first; future gold absent
    assert len(ranked) == 5 and "p0-t20" not in ranked
    assert r.rank("oracle", question(), gold, 1) == ["p0-d00-c0"]
    broken = r.rank("broken_oracle", question(), gold, 5)
    assert len(broken) == 5 and gold.isdisjoint(broken)
    # history of 9 items minus 2 gold leaves 7 known non-evidence items
    assert len(r.rank("broken_oracle", question(), gold, 50)) == 7


def test_full_context_truncates_to_budget_most_recent_first():
    items = items_of(TURNS, CHUNKS, "turns")
    whole = Retriever(items).rank("full_context", question(), frozenset(), 5)
    assert whole == [f"p0-t{n:02d}" for n in range(7, -1, -1)]  # k does not cut the context
    small = Retriever(items, token_budget=40).rank("full_context", question(), frozenset(), 5)
    assert 0 < len(small) < len(whole) and small == whole[: len(small)]
    assert Retriever(items, token_budget=1).rank("full_context", question(), frozenset(), 5) == []


def test_bm25_finds_the_lexical_match(retrievers):
    r = retrievers["turns"]
    assert r.rank("bm25", question("Who moved to Lisbon?"), frozenset(), 5)[0] == "p0-t01"
    assert r.rank("bm25", question("When is the bakery budget review?"), frozenset(), 5)[0] == "p0-t02"


def test_dense_and_hybrid_find_the_paraphrase(retrievers):
    r = retrievers["turns"]
    q = question("Which musical instrument am I studying?")  # no word in common with the cello turn
    assert r.rank("dense", q, frozenset(), 5)[0] == "p0-t03"
    assert "p0-t03" in r.rank("hybrid", q, frozenset(), 3)
    vectors = r._vectors
    r.rank("dense", question("Where does my sister live now?"), frozenset(), 5)
    assert r._vectors is vectors  # embeddings are encoded once per Retriever
    assert vectors.shape == (len(r.items), 384)


def test_invalid_inputs():
    with pytest.raises(ValueError):
        Retriever([Item("a", "turn", "p0", T0, "x"), Item("b", "turn", "p1", T0, "y")])
    r = Retriever(items_of(TURNS, CHUNKS, "turns"))
    with pytest.raises(ValueError):
        r.rank("telepathy", question(), frozenset(), 5)
    with pytest.raises(ValueError):
        r.rank("recency", question().model_copy(update={"persona_id": "p9"}), frozenset(), 5)
