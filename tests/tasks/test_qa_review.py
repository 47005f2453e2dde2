"""The aggregate QA verifier on the shared tiny world: clean questions are kept; broken ones withdrawn."""

from tasks import qa_review, questions
from tests.tasks.worldfixture import make_config, make_corpus, make_persona, make_world


def _inputs():
    config, persona = make_config(), make_persona()
    world = make_world()
    corpus = make_corpus(config, persona, world)
    return persona, world, corpus, questions.write_questions(config, persona, world, corpus)


def test_clean_questions_are_kept_and_wrong_answers_withdrawn():
    persona, world, corpus, qset = _inputs()
    assert qset.questions
    kept, reviews = qa_review.review_questions(persona, world, corpus, qset)
    assert len(reviews) == len(qset.questions) and all(r.status == "kept" for r in reviews), reviews
    assert kept == qset
    bad = qset.questions[0].model_copy(update={"answer": "something else entirely"})
    broken = qset.model_copy(update={"questions": [bad] + qset.questions[1:]})
    kept, reviews = qa_review.review_questions(persona, world, corpus, broken)
    assert reviews[0].status == "withdrawn" and reviews[0].reason == "correctness"
    assert bad.question_id not in {q.question_id for q in kept.questions}
    assert all(e.question_id != bad.question_id for e in kept.evidence)
