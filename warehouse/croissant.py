"""Croissant (MLCommons) JSON-LD metadata for a release: its files with sha256, one record set per table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from schemas.release import Manifest
from warehouse.integrity import sha256_file

CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "extract": "cr:extract",
    "field": "cr:field",
    "fileObject": "cr:fileObject",
    "fileProperty": "cr:fileProperty",
    "format": "cr:format",
    "isLiveDataset": "cr:isLiveDataset",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "repeated": "cr:repeated",
    "sc": "https://schema.org/",
    "source": "cr:source",
}


def data_type(arrow_type: pa.DataType) -> tuple[str, bool]:
    """The Croissant dataType of an Arrow column type, and whether the field is repeated (a list)."""
    if pa.types.is_list(arrow_type):
        return data_type(arrow_type.value_type)[0], True
    for test, name in ((pa.types.is_boolean, "sc:Boolean"), (pa.types.is_integer, "sc:Integer"),
                       (pa.types.is_floating, "sc:Float"), (pa.types.is_timestamp, "sc:DateTime"),
                       (pa.types.is_date, "sc:Date")):
        if test(arrow_type):
            return name, False
    return "sc:Text", False


def _record_set(table: str, schema: pa.Schema) -> dict[str, Any]:
    fields = []
    for column in schema:
        kind, repeated = data_type(column.type)
        field = {"@type": "cr:Field", "@id": f"{table}/{column.name}", "name": column.name, "dataType": kind,
                 "source": {"fileObject": {"@id": f"{table}.parquet"}, "extract": {"column": column.name}}}
        if repeated:
            field["repeated"] = True
        fields.append(field)
    return {"@type": "cr:RecordSet", "@id": table, "name": table, "field": fields}


def croissant(manifest: Manifest, folder: Path) -> dict[str, Any]:
    """The Croissant document for the Parquet tables already written in `folder`."""
    files = sorted(folder.glob("*.parquet"))
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "name": f"lifeloom-{manifest.name}-{manifest.version}",
        "description": f"lifeloom long-horizon personal-memory benchmark {manifest.name} {manifest.version} "
                       f"(run {manifest.run_id}, content hash {manifest.content_hash}).",
        "license": "https://spdx.org/licenses/MIT.html",
        "version": manifest.version,
        "datePublished": manifest.created_at.date().isoformat(),
        "distribution": [
            {"@type": "cr:FileObject", "@id": f.name, "name": f.name, "contentUrl": f.name,
             "encodingFormat": "application/x-parquet", "sha256": sha256_file(f)}
            for f in files
        ],
        "recordSet": [_record_set(f.stem, pq.read_schema(f)) for f in files],
    }
