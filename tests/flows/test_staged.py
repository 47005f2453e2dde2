"""Staged results pickle lazily: the small fields travel apart from the value, which unpickles on first use."""

import pickle

from flows.stages import Staged
from schemas.audit import Finding


def _finding(i: int) -> Finding:
    return Finding(finding_id=f"p0000-v{i:04d}", persona_id="p0000", stage="verify", artifact_id="a", check="c",
                   severity="error", message=f"m{i}")


def test_a_pickled_result_keeps_its_value_packed_until_read():
    staged = Staged([_finding(1), _finding(2)], "run-a", rows={"verifier_findings": [_finding(3)]})
    back = pickle.loads(pickle.dumps(staged))
    assert not back.loaded
    assert (back.digest, back.land_digest, back.origin_run, back.calls) == (staged.digest, staged.land_digest,
                                                                            "run-a", 0)
    assert back.value == staged.value and back.loaded
    assert back.rows == {"verifier_findings": [_finding(3)]} and back.ledger == []
    again = pickle.loads(pickle.dumps(back))  # a loaded result pickles from its value
    assert again.value == staged.value and again.digest == staged.digest


def test_the_land_digest_sees_extra_rows_the_value_digest_does_not():
    a = Staged([_finding(1)], "run-a", rows={"verifier_findings": [_finding(2)]})
    b = Staged([_finding(1)], "run-b", rows={"verifier_findings": [_finding(3)]})
    assert a.digest == b.digest and a.land_digest != b.land_digest


def test_results_cached_before_lazy_pickling_still_load():
    # the old class pickled every slot eagerly: (None, {slot: value}) as its state
    state = (None, {"value": [_finding(1)], "origin_run": "run-old", "ledger": [], "rows": {}, "digest": "x"})
    staged = Staged.__new__(Staged)
    staged.__setstate__(state)  # what unpickling does with it
    assert staged.loaded and staged.value == [_finding(1)] and staged.origin_run == "run-old"
    assert staged.digest == Staged([_finding(1)], "run-new").digest  # recomputed from the value
