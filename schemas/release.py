"""Run and release records, and the release manifest."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

LICENSE = "mit"
LICENSE_URL = "https://spdx.org/licenses/MIT.html"
"""The licence of every release (the project's: MIT), as Croissant (the URL), the dataset card and the HF export
(the Hugging Face id) state it."""


class RunRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_id: str
    name: str
    config_hash: str
    code_version: str
    started_at: dt.datetime
    finished_at: dt.datetime | None = None
    status: Literal["running", "succeeded", "failed"]
    message: str = ""
    kind: Literal["build", "import"] = "build"
    """A build of lifeloom's, or a benchmark imported with `lifeloom import`."""
    as_latest: bool = True
    """Whether the run may become `latest` (the newest such succeeded run): builds may, imports only when asked
    (`lifeloom import --as-latest`)."""


class ReleaseRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    version: str
    run_id: str
    created_at: dt.datetime
    content_hash: str
    path: str


class FileCheck(BaseModel):
    """What a release file must be: its size and SHA-256 (warehouse/integrity.py checks both)."""

    model_config = ConfigDict(extra="forbid")

    bytes: int
    sha256: str


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    version: str
    run_id: str
    created_at: dt.datetime
    code_version: str
    config: dict[str, Any]
    config_hash: str
    provider: dict[str, Any]
    stage_providers: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Each model-calling stage's provider (name, model, base_url): the default provider's, or the stage's own
    `[stages.providers.<stage>]` (flows/build.py `stage_providers`)."""
    package_versions: dict[str, str]
    prompt_hashes: dict[str, str]
    ledger: dict[str, Any]
    row_counts: dict[str, int]
    table_hashes: dict[str, str]
    content_hash: str
    gates: dict[str, Any]
    withdrawals: dict[str, Any] = Field(default_factory=dict)
    """Questions the QA verifier withdrew: total, by_reason and question_ids."""
    sources: dict[str, Any] = Field(default_factory=dict)
    """Documents by source type and by format (and by both)."""
    dialogue: dict[str, Any] = Field(default_factory=dict)
    """Sessions, turns by role, category and kind, the distinct 4-gram ratio of user turns (release, lowest
    persona, each persona) and dialogue and document tokens per persona (warehouse/release.py)."""
    companion: dict[str, Any] = Field(default_factory=dict)
    """Chat probes by stratum, tier and category, the natural memory rate, claims by temporality and slot
    (warehouse/release.py `companion_stats`)."""
    domain: dict[str, Any] = Field(default_factory=dict)
    """The domain pack: {"name": ..., **its release figures} (tasks/domains/, `DomainPack.release_stats`)."""
    measures: dict[str, Any] = Field(default_factory=dict)
    """Validity measures (tasks/metrics/report.py `summary`): values, units, notes, thresholds, verdicts and the
    bundled reference's values; every row with its detail is in `measures.parquet`."""
    tiers: dict[str, Any] = Field(default_factory=dict)
    """The length tiers (warehouse/tiers.py `tier_summary`): per tier its budget, tokenizer, tokens per persona (min,
    median, max), modes, haystack tokens and questions by category; empty when the config sets no tiers."""
    parent: str | None = None
    files: list[str] = Field(default_factory=list)
    data_docs: bool = False
    """Whether the gates' Data Docs site was built and copied into `data_docs/` (the card says so either way)."""
    checksums: dict[str, FileCheck] = Field(default_factory=dict)
    """Every file of the release but manifest.json (path relative to the release folder) with its size and
    SHA-256; `lifeloom verify` and every command that reads a release check them."""
