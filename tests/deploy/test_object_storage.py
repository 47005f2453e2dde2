"""deploy/README.md's DuckDB SQL reads a release through an fsspec filesystem (memory:// for s3://), and the
table's content hash over the remote view equals the one over the local file, as freeze computes it."""

import json
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


def _release(folder: Path, version: str = "v0001") -> Path:
    """A small frozen-release folder: manifest, one table, a Data Docs page."""
    folder.mkdir(parents=True)
    pq.write_table(to_arrow("gate_results", ROWS, RUN_ID), folder / "gate_results.parquet")
    (folder / "data_docs").mkdir()
    (folder / "data_docs" / "index.html").write_text("<html></html>")
    (folder / "manifest.json").write_text(json.dumps({"name": "rhelm", "version": version}))
    return folder


def test_publish_uploads_a_release_manifest_last_and_duckdb_reads_it(tmp_path):
    from typer.testing import CliRunner

    from flows.cli import app

    name = f"lifeloom-{uuid.uuid4().hex[:8]}"
    mem = fsspec.filesystem("memory")
    order = []
    put = mem.put_file
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(type(mem), "put_file", lambda self, src, dst, **kw: order.append(dst) or put(src, dst, **kw))
        done = CliRunner().invoke(app, ["publish", str(_release(tmp_path / "v0001")), "--to", f"memory://{name}",
                                        "--home", str(tmp_path / "home")])
    assert done.exit_code == 0, done.output
    assert f"memory://{name}/rhelm/v0001" in done.output
    assert order[-1].endswith("/rhelm/v0001/manifest.json") and len(order) == 3
    con = duckdb.connect()
    con.register_filesystem(mem)
    rows = con.execute(f"select count(*) from read_parquet('memory://{name}/rhelm/v0001/gate_results.parquet')")
    assert rows.fetchone() == (3,)

    again = CliRunner().invoke(app, ["publish", str(tmp_path / "v0001"), "--to", f"memory://{name}"])
    assert again.exit_code == 2 and "already published" in again.output  # never overwritten
    mem.rm(f"/{name}", recursive=True)


def test_publish_and_build_refuse_what_they_cannot_use(tmp_path):
    from typer.testing import CliRunner

    from flows.cli import app

    bad = CliRunner().invoke(app, ["publish", str(_release(tmp_path / "v0001")), "--to", "nosuchscheme://b/x"])
    assert bad.exit_code == 2 and "no filesystem for nosuchscheme://" in bad.output
    home = CliRunner().invoke(app, ["build", "--preset", "tiny", "--home", "s3://bucket/lifeloom"])
    assert home.exit_code == 2 and "looks like a URL" in home.output
    assert not Path("s3:").exists()
