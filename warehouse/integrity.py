"""Release integrity: every file a release holds is recorded in its manifest (size and SHA-256) at freeze, and
checked before a release is read.

`verify_release` lists every problem (a missing, resized, edited or unexpected file; an unreadable manifest);
`check_release` raises `ReleaseDamaged` with one line naming the first one. Sizes are always checked, hashes
unless the caller opts out (`--no-verify` on the commands). A release frozen before checksums were recorded
cannot be verified: it is read with a warning, never silently trusted as verified.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from schemas.release import FileCheck

MANIFEST = "manifest.json"


class ReleaseDamaged(ValueError):
    """A release whose files differ from what its manifest recorded (one line naming the file)."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def release_files(folder: Path) -> list[Path]:
    """Every file under the release folder but its manifest, in path order."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.relative_to(folder).as_posix() != MANIFEST)


def checksums(folder: Path) -> dict[str, FileCheck]:
    """Size and SHA-256 of every file of the release folder but manifest.json (recorded at freeze)."""
    return {p.relative_to(folder).as_posix(): FileCheck(bytes=p.stat().st_size, sha256=sha256_file(p))
            for p in release_files(folder)}


@dataclass
class Verification:
    """What checking a release found: `problems` (each naming a file) and whether it could be checked at all."""

    folder: Path
    problems: list[str] = field(default_factory=list)
    files: int = 0
    hashed: bool = True
    recorded: bool = True
    """False for a release frozen before checksums were recorded: nothing could be compared."""

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_release(folder: Path, hashes: bool = True) -> Verification:
    """Compare the release folder's files with its manifest's checksums: sizes always, SHA-256 when `hashes`."""
    result = Verification(folder=folder, hashed=hashes)
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        recorded = {k: FileCheck.model_validate(v) for k, v in manifest.get("checksums", {}).items()}
    except (OSError, ValueError) as exc:
        result.problems.append(f"{MANIFEST}: unreadable ({type(exc).__name__}: {exc})")
        return result
    if not recorded:
        result.recorded = False
        return result
    present = {p.relative_to(folder).as_posix(): p for p in release_files(folder)}
    result.files = len(recorded)
    for name, check in sorted(recorded.items()):
        path = present.get(name)
        if path is None:
            result.problems.append(f"{name}: missing")
            continue
        size = path.stat().st_size
        if size != check.bytes:
            result.problems.append(f"{name}: {size} bytes, the manifest recorded {check.bytes}")
        elif hashes and sha256_file(path) != check.sha256:
            result.problems.append(f"{name}: content changed (SHA-256 differs from the manifest's)")
    for name in sorted(set(present) - set(recorded)):
        result.problems.append(f"{name}: not part of the release as frozen")
    return result


def check_release(folder: Path, ref: str, hashes: bool = True) -> Verification:
    """Verify the release or raise ReleaseDamaged naming the first damaged file (and how to list them all)."""
    result = verify_release(folder, hashes)
    if result.problems:
        more = f" (and {len(result.problems) - 1} more)" if len(result.problems) > 1 else ""
        raise ReleaseDamaged(f"release {ref} is damaged: {result.problems[0]}{more}; it is not read. "
                             f"`lifeloom verify {ref}` lists every problem; freeze a new version to replace it")
    return result
