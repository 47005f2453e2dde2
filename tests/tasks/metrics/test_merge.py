"""Tallies counted apart and merged in persona order give the measures of one pass (warehouse/measurepool.py)."""

import pickle

from tasks import metrics
from tasks.metrics import grammar
from tests.tasks.metrics_rows import Evidence, corpus, fact, question, turn

SHARED = "We walked along the river after work."


def personas():
    """Three personas: a sentence two of them say (cross-persona share), repeats within one, more mistimed
    greetings and restating follow-ups than the five examples a measure keeps, facts and questions."""
    out = []
    for k, (name, employer) in enumerate((("Ana Lima", "Blue Mill Bakery"), ("Ben Ode", "Red Kite Press"),
                                          ("Cleo Sá", "Green Lane Dairy")), start=1):
        pid = f"p000{k}"
        turns = [turn(pid, 1, f"Good evening! My employer is {employer}.", fact_ids=[f"{pid}-f0001"], minutes=0)]
        turns += [turn(pid, n, "Good morning. I went to the market again today.", minutes=n * 600)
                  for n in range(2, 6)]
        turns += [turn(pid, 6, SHARED if k < 3 else "The rain kept us indoors.", minutes=4000),
                  turn(pid, 7, f"Congratulations on {employer}! Do you like it there?", role="assistant",
                       minutes=4001),
                  turn(pid, 8, f"I moved to {employer} in March. It is a short walk.", minutes=4002)]
        qs = [question(pid, 1, f"Who is {name.split()[0]}'s employer?", employer, fact_ids=[f"{pid}-f0001"]),
              question(pid, 2, f"Does {name.split()[0]} like the market?", "Yes", template="t.yes",
                       options=["Yes", "No"], answer_type="mcq")]
        out.append(corpus(pid, name=name, turns=turns, facts=[fact(pid, 1, "employer", employer)], questions=qs,
                          evidence=[Evidence(question_id=q.question_id, evidence_id=turns[0].turn_id,
                                             evidence_kind="turn") for q in qs]))
    return out


def dumped(rows):
    return [r.model_dump() for r in rows]


def test_merged_tallies_equal_one_pass():
    cache = grammar.Verdicts()
    one_pass = metrics.measure_corpus(personas(), grammar_sample=4, parse_cache=cache)
    parts = [pickle.loads(pickle.dumps(metrics.add_personas(metrics.new_tallies(4), [p]))) for p in personas()]
    merged = metrics.merge_tallies(metrics.new_tallies(4, cache), parts)
    assert dumped(metrics.measure_rows(merged)) == dumped(one_pass)
    rows = {r.measure: r for r in one_pass}
    assert 0 < rows["language.user.cross_persona_share"].value < 1  # the shared sentence counts across parts
    assert rows["coherence.greetings_against_time"].n == 15
    assert len(rows["coherence.greetings_against_time"].detail["examples"]) == 5


def test_verdicts_hold_what_a_pool_parsed_in_front_of_the_disk_cache():
    class Disk:
        def __init__(self):
            self.rows = {"known one": True}

        def get(self, s):
            return (s in self.rows, self.rows.get(s))

        def put(self, s, v):
            self.rows[s] = v

    disk = Disk()
    cache = grammar.Verdicts(disk)
    assert cache.unknown(["known one", "New one.", "New  one.", " ".join(["word"] * 80)]) == ["New one."]
    cache.put("New one.", False)
    assert cache.get("New one.") == (True, False) and disk.rows["New one."] is False
    assert grammar.parses("New one.", cache) is False  # found, not parsed again
