"""deploy/README.md's DuckDB SQL reads a release through an fsspec filesystem (memory:// for s3://), and the
table's content hash over the remote view equals the one over the local file, as freeze computes it."""

import re
import uuid
from pathlib import Path

import duckdb
import fsspec
import pyarrow.parquet as pq
import pytest

from schemas.audit import GateResult
from schemas.tables import to_arrow
from warehouse.release import table_hash

README = Path(__file__).resolve().parents[2] / "deploy" / "README.md"
RUN_ID = "demo-20240101T000000"
ROWS = [GateResult(suite="distribution", expectation="tokens per persona", success=True),
        GateResult(suite="distribution", expectation="user turns", success=False, unexpected_count=2,
                   sample=["p0001", "p0002"]),
        GateResult(suite="integrity", expectation="unique question ids", column_name="question_id", success=True)]


def readme_sql() -> list[str]:
    """The statements of the README's SQL block that reads a release from s3://."""
    blocks = re.findall(r"```sql\n(.*?)```", README.read_text(), flags=re.S)
    (block,) = [b for b in blocks if "read_parquet('s3://" in b]
    return [s.strip() for s in block.split(";\n") if s.strip()]


@pytest.fixture
def bucket(tmp_path):
    """A local release file and the same bytes under a fresh memory:// bucket; yields (local file, bucket)."""
    local = tmp_path / "gate_results.parquet"
    pq.write_table(to_arrow("gate_results", ROWS, RUN_ID), local)
    mem = fsspec.filesystem("memory")
    name = f"lifeloom-{uuid.uuid4().hex[:8]}"
    mem.pipe(f"/{name}/releases/rhelm/v0001/gate_results.parquet", local.read_bytes())
    yield local, name
    mem.rm(f"/{name}", recursive=True)


def test_readme_sql_reads_a_release_through_fsspec(bucket):
    local, name = bucket
    con = duckdb.connect()
    con.register_filesystem(fsspec.filesystem("memory"))
    *setup, query = [s.replace("s3://lifeloom-data/", f"memory://{name}/") for s in readme_sql()]
    for statement in setup:
        con.execute(statement)
    assert con.sql(query).fetchall() == [("distribution", 2, 1), ("integrity", 1, 0)]

    local_con = duckdb.connect()
    local_con.execute(f"create view gate_results as select * from read_parquet('{local}')")
    assert table_hash(con, "gate_results", RUN_ID) == table_hash(local_con, "gate_results", RUN_ID)
