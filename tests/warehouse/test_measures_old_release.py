"""A release frozen by an older lifeloom (its Parquet lacks a column added since) is still read and measured."""

from __future__ import annotations

import duckdb

from schemas.corpus import Document
from warehouse.measures import _models


def test_a_column_the_release_lacks_takes_its_default():
    con = duckdb.connect()
    con.execute("create view documents as select 'r1' as run_id, 'p0-d0001' as doc_id, 'p0' as persona_id, "
                "timestamp '2024-03-01 20:00:00' as created_at, 'journal' as source_type, 'md' as format, "
                "'A day' as title, 'Body.' as body, '{}' as realized")  # no `judged`, no `tables`, ...
    [doc] = _models(con, "documents", Document, "r1", "p0")
    assert (doc.doc_id, doc.body, doc.judged, doc.realized) == ("p0-d0001", "Body.", [], {})
    assert _models(con, "no_such_table", Document, "r1", "p0") == []
