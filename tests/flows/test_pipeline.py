"""The pipeline is declared once (flows/pipeline.py) and everything else agrees with it."""

from flows import fingerprint
from flows.build import STAGE_INPUTS, STAGES
from flows.pipeline import PIPELINE, stage_rows
from flows.pipeline import STAGES as DECLARED
from flows.stages import STAGE_TASKS
from schemas.tables import CORPUS_TABLES


def test_every_declared_stage_has_its_task_and_every_task_a_declaration():
    assert list(STAGE_TASKS) == [s.name for s in PIPELINE]
    assert all(task.name == name for name, task in STAGE_TASKS.items())
    assert STAGES == (*DECLARED, "land")


def test_inputs_come_before_the_stage_that_reads_them():
    seen: set[str] = set()
    for stage in PIPELINE:
        assert set(stage.inputs) <= seen, stage.name
        seen.add(stage.name)
    assert STAGE_INPUTS == {s.name: s.inputs for s in PIPELINE}


def test_the_cache_key_tables_are_the_declarations():
    assert fingerprint.STAGE_MODULES == {s.name: s.module for s in PIPELINE}
    assert set(fingerprint.STAGE_GATEWAYS) == {s.name for s in PIPELINE if s.gateway}
    assert fingerprint.STAGE_PROMPTS["dialogue"] == DECLARED["dialogue"].prompts


def test_each_table_is_landed_by_one_stage_and_every_stage_table_is_in_the_contract():
    landed = [t for s in PIPELINE for t in s.lands]
    assert len(landed) == len(set(landed)) and set(landed) <= set(CORPUS_TABLES)


def test_a_stage_lands_only_its_declared_tables():
    from schemas.corpus import Corpus

    rows = stage_rows(DECLARED["sources"], Corpus())
    assert set(rows) == {"documents", "chunks"}
    assert stage_rows(DECLARED["verify"], ["f"]) == {"verifier_findings": ["f"]}
    assert stage_rows(DECLARED["questions"], object()) == {}  # the drafted questions land through review
