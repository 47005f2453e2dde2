"""Croissant (MLCommons) JSON-LD metadata for a release: its files with sha256, one record set per table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from schemas.release import LICENSE_URL, Manifest
from warehouse.integrity import sha256_file

CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
"""The Croissant 1.0 `@context`, key for key (mlcroissant warns of any other)."""


def semver(version: str) -> str:
    """A release version as Croissant's MAJOR.MINOR.PATCH: `v0003` -> `3.0.0` (each version may change any
    table: a major one); anything else already semver is kept."""
    digits = version.removeprefix("v")
    return f"{int(digits)}.0.0" if digits.isdigit() else version


def cite_as(manifest: Manifest) -> str:
    """A BibTeX entry for the release."""
    key = f"lifeloom_{manifest.name}_{manifest.version}".replace("-", "_")
    return (f"@misc{{{key}, title = {{lifeloom {manifest.name} {manifest.version}: a long-horizon personal-memory "
            f"benchmark}}, year = {{{manifest.created_at.year}}}, note = {{content hash {manifest.content_hash}}}, "
            f"howpublished = {{lifeloom release {manifest.name}/{manifest.version}}}}}")


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
        "license": LICENSE_URL,
        "version": semver(manifest.version),
        "citeAs": cite_as(manifest),
        "datePublished": manifest.created_at.date().isoformat(),
        "distribution": [
            {"@type": "cr:FileObject", "@id": f.name, "name": f.name, "contentUrl": f.name,
             "encodingFormat": "application/x-parquet", "sha256": sha256_file(f)}
            for f in files
        ],
        "recordSet": [_record_set(f.stem, pq.read_schema(f)) for f in files],
    }
