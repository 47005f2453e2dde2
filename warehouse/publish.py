"""Publish a frozen release to object storage (or any fsspec URL): `lifeloom publish NAME/VERSION --to URL`.

The build's data root stays a POSIX directory (deploy/README.md "Past one machine" says why); a frozen
release is immutable, so copying it out is safe at any time. Layout at the target:

    <url>/<name>/<version>/{manifest.json, <table>.parquet, README.md, croissant.json, data_docs/...}

Every file but `manifest.json` is uploaded first and checked by size; `manifest.json` goes last and is the
commit marker: a reader treats a version folder without it as absent, and a version whose manifest is
already there is never overwritten. One PUT is atomic per object on S3, GCS and Azure, so there is no
temporary-file-and-rename step. DuckDB reads the published Parquet directly (deploy/README.md).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "manifest.json"
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+://")


class PublishError(RuntimeError):
    """The release cannot be published to that URL (one message, no partial manifest)."""


@dataclass
class Published:
    url: str
    files: int
    bytes: int


def is_url(text: str) -> bool:
    """True for `scheme://...` (two letters at least, so a Windows drive is not a scheme)."""
    return bool(_URL.match(text))


def filesystem(url: str):
    """The fsspec filesystem and root path for `url`; PublishError when the scheme is unknown or its driver
    (s3fs, gcsfs, adlfs) is not installed."""
    import fsspec

    if not is_url(url):
        raise PublishError(f"--to {url!r}: expected a URL such as s3://bucket/prefix, gs://..., az://..., "
                           "file:///path or memory://name")
    try:
        return fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as exc:
        scheme = url.split("://", 1)[0]
        raise PublishError(f"--to {url!r}: no filesystem for {scheme}:// ({exc}); install its fsspec driver, "
                           "e.g. `pip install s3fs` for s3://") from None


def publish_release(folder: Path, url: str) -> Published:
    """Upload the frozen release in `folder` under `url/<name>/<version>/`, manifest last."""
    manifest = folder / MANIFEST
    try:
        meta = json.loads(manifest.read_text())
        name, version = meta["name"], meta["version"]
    except (OSError, ValueError, KeyError) as exc:
        raise PublishError(f"{folder} is not a frozen release (its manifest.json: {exc})") from None
    fs, root = filesystem(url)
    target = f"{root.rstrip('/')}/{name}/{version}"
    if fs.exists(f"{target}/{MANIFEST}"):
        raise PublishError(f"{url.rstrip('/')}/{name}/{version} is already published; releases are never "
                           "overwritten (freeze a new version)")
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p != manifest)
    for path in files:
        remote = _put(fs, folder, path, target)
        if fs.size(remote) != path.stat().st_size:
            raise PublishError(f"{remote}: uploaded {fs.size(remote)} of {path.stat().st_size} bytes; "
                               "manifest not written, so the version stays absent")
    _put(fs, folder, manifest, target)  # last: it marks the version complete
    return Published(url=f"{url.rstrip('/')}/{name}/{version}", files=len(files) + 1,
                     bytes=sum(p.stat().st_size for p in files + [manifest]))


def _put(fs, folder: Path, path: Path, target: str) -> str:
    remote = f"{target}/{path.relative_to(folder).as_posix()}"
    fs.makedirs(remote.rsplit("/", 1)[0], exist_ok=True)
    fs.put_file(str(path), remote)
    return remote
