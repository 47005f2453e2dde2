"""Build configuration: one `BuildConfig`, loaded from a TOML file or a named preset, and the
process settings (data root, secrets) read from the environment."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from schemas.corpus import DIALOGUE_CATEGORIES
from schemas.finance import FinanceOptions
from schemas.lifespan import MAX_DAYS, WorldOptions, span_days
from schemas.metrics import DEFAULT_MEASURE_GATES, MeasureBound, bounds, measure_names
from schemas.tiers import ReleaseOptions

MODEL_STAGES = ("profile", "loop", "sources", "dialogue", "questions", "companion")
"""The stages that call a model, by the names `[stages.providers.<stage>]` overrides use."""


PACK_OPTIONS: dict[str, type[BaseModel] | None] = {"general": None, "finance": FinanceOptions}
"""Each domain pack's settings model (validates `[pack]`)."""


class ConfigError(ValueError):
    """A configuration a user wrote (or named) that cannot be used; the message says why."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProviderConfig(_Strict):
    """Which model narrates. Keys never live here: `api_key_env` names the environment variable."""

    name: Literal["offline", "openai", "anthropic"] = "offline"
    model: str = "offline-narrator-v1"
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float = Field(0.7, ge=0, le=2)
    max_output_tokens: int = Field(1024, gt=0)
    max_concurrency: int | None = Field(
        None, ge=1, description="requests in flight at most (None: follow the rate limit and the observed latency, "
                                "Little's law; tasks/llm/limits.py)")
    requests_per_minute: int | None = Field(None, ge=1)
    input_tokens_per_minute: int | None = Field(None, ge=1)
    output_tokens_per_minute: int | None = Field(None, ge=1)
    timeout_s: float = Field(60.0, gt=0, description="per-request timeout")
    max_retries: int = Field(4, ge=0, description="retries of a transient error (429, 5xx, timeout) per attempt")
    breaker_threshold: int = Field(12, ge=1, description="consecutive failed requests that open the circuit")
    price_per_mtok_in: float | None = Field(
        None, ge=0, description="USD per million input tokens (None: the dated price table of tasks/llm/pricing.py)")
    price_per_mtok_out: float | None = Field(
        None, ge=0, description="USD per million output tokens (None: the price table)")
    price_per_mtok_cached_in: float | None = Field(
        None, ge=0, description="USD per million input tokens read from the prompt cache (None: as input)")
    mode: Literal["sync", "batch"] = Field(
        "sync", description="sync: one request a call; batch: each round of calls as one batch at the batch price "
                            "(OpenAI Batch API, Anthropic Message Batches; tasks/llm/batch.py)")
    batch_poll_s: float = Field(30.0, gt=0, description="first wait between polls of a running batch (it grows)")
    batch_poll_max_s: float = Field(300.0, gt=0, description="longest wait between polls of a running batch")
    batch_timeout_h: float = Field(26.0, gt=0, description="give up waiting for a batch after this long (it stays "
                                                           "recorded and the next run waits for it again)")
    batch_gather_s: float = Field(
        2.0, ge=0, description="a round waits this long for the rounds other personas start at the same moment, "
                               "and they go out as one batch (0: each round alone)")
    latency_s: float = Field(1.0, gt=0, description="seconds to a call's first token, for the plan's wall time")
    output_tokens_per_s: float = Field(60.0, gt=0, description="output tokens a second, for the plan's wall time")

    @field_validator("base_url")
    @classmethod
    def _no_credentials_in_url(cls, value: str | None) -> str | None:
        """No user:password@, and no query or fragment that holds anything key-like (schemas.secrets)."""
        from schemas.secrets import url_problem

        problem = None if value is None else url_problem(value)
        if problem:
            raise ValueError(problem)
        return value


class LoopOptions(_Strict):
    max_plans_per_day: int = Field(2, ge=1, le=10)
    plan_probability: float = Field(0.6, ge=0, le=1, description="chance a given day holds a plan")


class SourceOptions(_Strict):
    email_probability: float = Field(0.6, ge=0, le=1, description="chance an event yields an email")
    chunk_tokens: int = Field(500, ge=20, description="chunk budget in cl100k_base tokens (RHELM: 500)")
    chunk_overlap: int = Field(50, ge=0, description="tokens repeated from the previous chunk (RHELM: 50)")
    reply_probability: float = Field(0.4, ge=0, le=1, description="chance a personal email gets a reply")
    report_period_days: int = Field(14, ge=1, description="days covered by each periodic report")
    paraphrased: float | None = Field(
        None, ge=0, le=1, description="share of the facts of the persona's own journals and emails said in other "
                                      "words (tasks/sources/realized.py); None: the dialogue's mention_modes "
                                      "paraphrased and implied shares together")


class DialogueOptions(_Strict):
    followups: int = Field(1, ge=0, le=5, description="follow-up user turns per topic")
    context_window: int = Field(6, ge=0, description="earlier turns of the session each model call sees at least")
    context_step: int = Field(
        12, ge=0, description="turns by which the start of what a call sees moves (0: one at a time); a start that "
                              "stays put lets a session's calls share a prefix the provider's prompt cache serves")
    filler_rate: float = Field(
        0.15, ge=0, lt=1, description="share of topics that are small talk or unrelated requests"
    )
    delay_share: float = Field(
        0.3, ge=0, le=1, description="share of events talked about one to six days after they happened"
    )
    details_per_event: int = Field(
        2, ge=0, le=6, description="most outcome-narrative sentences without a fact that become bullets"
    )
    max_attempts: int = Field(3, ge=1, le=5, description="wordings tried per turn before a template or a drop")
    mention_modes: dict[str, float] = Field(
        default_factory=lambda: {"paraphrased": 0.55, "implied": 0.2, "corrected": 0.06, "split": 0.08,
                                 "about_other": 0.12, "hypothetical": 0.08},
        description="share of each mention mode among the opening mentions that can take it (tasks/dialogue/"
                    "mentions.py): paraphrased, implied (by a consequence; paraphrased when the fact has no such "
                    "frame), corrected and split (over the opening and the first follow-up) share one draw (the "
                    "rest explicit), about_other and hypothetical (distractors said beside the fact) a second",
    )

    @field_validator("mention_modes")
    @classmethod
    def _known_modes(cls, shares: dict[str, float]) -> dict[str, float]:
        realized = ("paraphrased", "implied", "corrected", "split", "about_other", "hypothetical")
        unknown = sorted(set(shares) - set(realized))
        if unknown:
            raise ValueError(f"mention_modes: {', '.join(unknown)} cannot be set (the narrators realize "
                             f"{', '.join(realized)}; the rest are explicit)")
        bad = sorted(k for k, v in shares.items() if not 0 <= v <= 1)
        if bad:
            raise ValueError(f"mention_modes: the share of {', '.join(bad)} must be between 0 and 1")
        for group in (("paraphrased", "implied", "corrected", "split"), ("about_other", "hypothetical")):
            if sum(shares.get(k, 0.0) for k in group) > 1:
                raise ValueError(f"mention_modes: {' + '.join(group)} share one draw and must add up to at most 1")
        return shares
    corrected_later: float = Field(
        0.5, ge=0, le=1,
        description="share of corrected mentions put right in a later session instead of the same message: the "
                    "opening says only the slip, a one-turn topic three days to four weeks on corrects it "
                    "(tasks/dialogue/latefix.py); 0 corrects every slip at once",
    )
    memory_rate: float | None = Field(
        None, ge=0, le=1,
        description="share of user turns that need memory from outside the recent window (RealCompanion "
                    "measured about 0.03 in real use); None leaves the rate the topics produce",
    )


class QuestionOptions(_Strict):
    """How many questions a persona gets and in what form (tasks/questions/)."""

    per_persona: int = Field(60, ge=1, description="questions per persona (upper bound)")
    per_category: int | None = Field(
        None, ge=1, description="questions per category and persona (upper bound; None: only the share bounds it)"
    )
    max_category_share: float = Field(
        0.30, gt=0, le=1, description="largest share of a persona's questions in one category"
    )
    characteristic_floor: int = Field(
        2, ge=0, description="questions per characteristic and persona taken first, when candidates exist"
    )
    max_template_share: float = Field(
        0.02, gt=0, le=1, description="largest share of a persona's questions one derivation template writes "
        "(at least one item; raised only when the candidates cannot fill per_persona otherwise)"
    )
    mcq_share: float = Field(0.5, ge=0, le=1, description="share of short-answer items asked as multiple choice")
    zero_memory: int = Field(3, ge=0, description="zero-memory control questions per persona")
    distraction_sessions: int = Field(
        5, ge=1, description="unrelated sessions after the last evidence that make a question post-distraction"
    )
    checkpoint_probes: int = Field(
        2, ge=0, le=6, description="mid-timeline question times (besides the day after the simulation)"
    )
    rephrase: bool = Field(True, description="let a real provider rephrase question texts (never offline)")
    forms: bool = Field(
        True, description="ask each question in a drawn form: moved adverbial, a request "
        "(tasks/questions/forms.py); off: as the template writes it. Either way the user asks in the first person"
    )
    request_share: float = Field(
        0.5, ge=0, le=1, description="share of recall questions set in a request or a lead ('Do you remember ...')"
    )
    indirect_share: float = Field(
        0.5, ge=0, le=1, description="share of the questions naming a related person that call them by their "
        "relation ('my brother'), the relationship becoming a hop of the evidence (tasks/questions/asking.py)"
    )


class CompanionOptions(_Strict):
    """The companion tracks (tasks/companion/): chat probes and profile reconstruction."""

    enabled: bool = Field(True, description="build the chat and reconstruction tracks")
    proportional: int = Field(40, ge=0, description="probes per persona drawn at the corpus's natural memory rate")
    enriched: int = Field(20, ge=0, description="probes per persona drawn from memory-bearing turns only")
    abstention: int = Field(10, ge=0, description="probes per persona drawn from turns that need nothing")
    window: int | None = Field(
        None, ge=0, description="turns before a probe that form its recent window (None: dialogue.context_window)"
    )


class StageOptions(_Strict):
    loop: LoopOptions = LoopOptions()
    sources: SourceOptions = SourceOptions()
    dialogue: DialogueOptions = DialogueOptions()
    questions: QuestionOptions = QuestionOptions()
    companion: CompanionOptions = CompanionOptions()
    providers: dict[str, ProviderConfig] = Field(
        default_factory=dict, description="per-stage provider overrides, keyed by stage name"
    )

    @field_validator("providers")
    @classmethod
    def _known_stages(cls, value: dict[str, ProviderConfig]) -> dict[str, ProviderConfig]:
        unknown = sorted(set(value) - set(MODEL_STAGES))
        if unknown:
            raise ValueError(f"no model-calling stage named {', '.join(map(repr, unknown))}; "
                             f"stages that call a model: {', '.join(MODEL_STAGES)}")
        return value


DIALOGUE_CATEGORY_FLOORS = {c: 1 for c in DIALOGUE_CATEGORIES}
"""Topics (opening user turns) per dialogue category, across the run."""


class GateOptions(_Strict):
    """Release-gate thresholds. Floors default to what the current stages produce; raise them as stages grow."""

    category_floors: dict[str, int] = Field(default_factory=lambda: {"fact": 1, "temporal": 1},
                                            description="least questions per category across the corpus")
    characteristic_floors: dict[str, int] = Field(
        default_factory=lambda: {"implicit_temporal_lookup": 1},
        description="least questions per characteristic across the corpus (presets set all 27)",
    )
    source_type_floors: dict[str, int] = Field(default_factory=lambda: {"email": 1, "journal": 1, "report": 1},
                                               description="least documents per source type across the corpus")
    format_floors: dict[str, int] = Field(default_factory=lambda: {"txt": 1, "md": 1, "html": 1},
                                          description="least documents per format across the corpus")
    dialogue_category_floors: dict[str, int] = Field(
        default_factory=lambda: dict(DIALOGUE_CATEGORY_FLOORS),
        description="least topics (opening user turns) per dialogue category across the corpus")
    max_fallback_share: float = Field(0.2, ge=0, le=1, description="largest share of llm_calls ending in fallback")
    outcome_tolerance: float = Field(0.2, ge=0, le=1, description="allowed |positive share - rollout_p|")
    min_outcome_events: int = Field(20, ge=1, description="fewer rolled-out events than this: share not tested")
    gold_longest_tolerance: float = Field(0.15, ge=0, le=1, description="allowed excess of gold-longest share")
    gold_position_alpha: float = Field(0.01, gt=0, lt=1, description="chi-square p-value floor for gold positions")
    gold_rank_alpha: float = Field(
        0.01, gt=0, lt=1, description="chi-square p-value floor for the gold's rank among ordered MCQ options"
    )
    min_mcq_for_stats: int = Field(30, ge=6, description="fewer MCQ items than this: MCQ statistics not tested")
    grammar_sample: int = Field(
        400, ge=0, description="sentences per role the grammar measure parses with Link Grammar (its standard "
        "error, and so the gate's slack, grows as the sample shrinks; a smoke-test preset parses fewer)",
    )
    max_category_share: float = Field(
        0.30, gt=0, le=1, description="largest share of a persona's (and the corpus's) questions in one category"
    )
    min_questions_per_persona: int = Field(1, ge=0, description="fewest questions a persona may end with")
    min_questions_for_share: int = Field(
        20, ge=1, description="a persona with fewer questions than this: its category share is not tested"
    )
    min_distinct_4gram_ratio: float = Field(
        0.5, ge=0, le=1, description="least distinct/all word 4-grams of each persona's user turns"
    )
    min_user_turns_per_persona: int = Field(0, ge=0, description="least user turns of each persona")
    min_tokens_per_persona: int = Field(
        0, ge=0, description="least cl100k_base tokens of each persona's dialogue and documents together"
    )
    max_tokens_per_persona: int | None = Field(
        None, ge=1, description="most cl100k_base tokens of each persona's dialogue and documents together"
    )
    domain_quotas: dict[str, int] = Field(
        default_factory=dict, description="domain -> least questions over that domain's personas"
    )
    measures: dict[str, float | MeasureBound] = Field(
        default_factory=lambda: dict(DEFAULT_MEASURE_GATES),
        description="validity measure -> threshold (a number bounds it in its better direction, or {min, max}); "
                    "merged over the defaults, `false` drops a default (tasks/metrics/, `lifeloom metrics`)",
    )
    min_measure_units: int = Field(
        20, ge=0, description="a measure over fewer units (sentences, turns, items) is reported but not gated"
    )

    @field_validator("measures", mode="before")
    @classmethod
    def _over_defaults(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        merged = {**DEFAULT_MEASURE_GATES, **value}
        return {k: v for k, v in merged.items() if v is not False}

    @field_validator("measures")
    @classmethod
    def _known_measures(cls, value: dict[str, float | MeasureBound]) -> dict[str, float | MeasureBound]:
        names = set(measure_names())
        for name, threshold in value.items():
            if name not in names:
                raise ValueError(f"unknown measure {name!r} (`lifeloom metrics` lists them)")
            bounds(name, threshold)
        return value


class RunnerOptions(_Strict):
    """How persona branches run: Prefect's default thread pool, or Dask (a LocalCluster, or `address`)."""

    kind: Literal["default", "dask"] = "default"
    address: str | None = Field(None, description="an existing Dask scheduler, e.g. tcp://10.0.0.5:8786")
    workers: int = Field(2, ge=1, description="LocalCluster workers when no address is given")
    threads_per_worker: int | None = Field(None, ge=1, description=(
        "task threads per LocalCluster worker; unset: 1 when every stage narrates offline (CPU-bound Python), else "
        "enough for max_active_personas to wait on their providers at once"))
    max_active_personas: int = Field(
        4, ge=1, description="persona branches in flight at once (peak memory grows with this, not with personas)"
    )


class Limits(_Strict):
    """Ceilings a build is checked against before any work (flows/limits.py, README "Limits"). They decide whether
    a build starts, never what it produces, so they are not part of the config hash."""

    max_hours: float = Field(24.0, gt=0, description="refuse a build whose estimated time is longer")
    max_memory_gb: float | None = Field(
        None, gt=0, description="refuse a build whose estimated peak memory is larger (None: 80% of this machine's)")
    max_calls: int = Field(
        250_000, ge=1, description="refuse a build estimated to make more model calls through a paid provider")
    max_cost_usd: float = Field(
        10.0, ge=0, description="a build whose plan costs more (or whose price is unknown) asks before it starts, "
                                "and without a terminal refuses unless given --yes (flows/plan.py)")


CALENDAR_MARGIN_DAYS = 366
"""Days after the simulation a build may date things in (questions after the timeline, checkpoints, replies)."""
class BuildConfig(_Strict):
    """Everything that determines a corpus. Equal configs (and LLM caches) give equal corpora."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")
    seed: int = 0
    personas: int = Field(3, ge=1, le=100_000)
    seed_file: Path | None = None
    domain: Literal["general", "finance"] = Field("general", description="the domain pack (tasks/domains/)")
    pack: dict[str, Any] = Field(
        default_factory=dict, description="the domain pack's own settings, checked by the pack's options model"
    )
    start_date: dt.date = dt.date(2024, 1, 1)
    days: int = Field(60, gt=0, le=MAX_DAYS, description="simulated days from start_date (`[world] years` sets it)")
    world: WorldOptions = WorldOptions()
    rollout_p: float = Field(0.7, ge=0, le=1, description="probability a planned event turns out well")
    prune_interval: int = Field(30, gt=0, description="days between LOOP prune passes")
    provider: ProviderConfig = ProviderConfig()
    stages: StageOptions = StageOptions()
    gates: GateOptions = GateOptions()
    release: ReleaseOptions = ReleaseOptions()
    runner: RunnerOptions = RunnerOptions()
    limits: Limits = Limits()

    @model_validator(mode="after")
    def _years_set_the_days(self) -> BuildConfig:
        """`[world] years = N` sets the days (schemas/lifespan.py). Runs first (validators run in the order defined),
        so the calendar check below sees them."""
        self.days = span_days(self.start_date, self.world.years, self.days, "days" in self.model_fields_set)
        return self

    @model_validator(mode="after")
    def _timeline_fits_the_calendar(self) -> BuildConfig:
        """The simulated days, and the year after them in which questions, probes and replies are dated, end before
        the calendar does (a start of 9999-12-25 overflowed deep inside a build)."""
        if (dt.date.max - self.start_date).days < self.days + CALENDAR_MARGIN_DAYS:
            raise ValueError(f"start_date {self.start_date} plus {self.days} days (and the year after them in which "
                             f"questions are asked) runs past the calendar's end ({dt.date.max}); choose an earlier "
                             "start_date")
        return self

    @model_validator(mode="after")
    def _seed_file_exists(self) -> BuildConfig:
        if self.seed_file is not None and not self.seed_file.is_file():
            raise ValueError(f"seed_file {str(self.seed_file)!r} does not exist")
        return self

    @model_validator(mode="after")
    def _pack_options_valid(self) -> BuildConfig:
        model = PACK_OPTIONS.get(self.domain)
        if model is None and self.pack:
            raise ValueError(f"domain {self.domain!r} takes no [pack] settings; remove them")
        if model is not None:
            try:
                model.model_validate(self.pack)
            except ValidationError as exc:
                problem = describe_validation_error(exc, "pack")
                raise ValueError(f"[pack] for domain {self.domain!r}: {problem}") from None
        return self

    @property
    def pack_options(self) -> BaseModel | None:
        """The domain pack's validated settings (None when the pack takes none)."""
        model = PACK_OPTIONS.get(self.domain)
        return model.model_validate(self.pack) if model is not None else None

    @property
    def end_date(self) -> dt.date:
        return self.start_date + dt.timedelta(days=self.days - 1)

    def provider_for(self, stage: str) -> ProviderConfig:
        return self.stages.providers.get(stage, self.provider)

    def canonical_json(self) -> str:
        # the runner decides where stages run and the limits whether a build starts, never what they produce;
        # `[world] years` only sets `days`, so a config without it hashes as before the table existed
        data = self.model_dump(mode="json", exclude={"runner", "limits"})
        if data["world"] == WorldOptions().model_dump(mode="json"):
            del data["world"]
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    def config_hash(self) -> str:
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()[:16]


def preset_names() -> list[str]:
    files = resources.files("schemas").joinpath("presets").iterdir()
    return sorted(p.name.removesuffix(".toml") for p in files if p.name.endswith(".toml"))


def load_preset(name: str) -> BuildConfig:
    """The bundled preset `name` (see schemas/presets/)."""
    if name not in preset_names():
        raise ConfigError(f"unknown preset {name!r}; available presets: {', '.join(preset_names())}")
    text = resources.files("schemas").joinpath("presets", f"{name}.toml").read_text()
    return config_from_toml(text, source=f"preset {name}")


def load_config_file(path: Path) -> BuildConfig:
    """A config from a TOML file; relative seed_file paths resolve against the file's folder."""
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    return config_from_toml(path.read_text(), source=str(path), base=path.parent)


def config_from_toml(text: str, source: str, base: Path | None = None) -> BuildConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: invalid TOML: {exc}") from None
    if base is not None and isinstance(data.get("seed_file"), str):
        data["seed_file"] = str((base / data["seed_file"]).resolve())
    return config_from_dict(data, source)


def config_from_dict(data: dict, source: str = "config") -> BuildConfig:
    try:
        return BuildConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{source}: {describe_validation_error(exc)}") from None


def describe_validation_error(exc: ValidationError, prefix: str = "") -> str:
    """One line per problem, each naming the field: `field 'days': Input should be greater than 0`."""
    parts = []
    for err in exc.errors():
        field = ".".join([prefix] * bool(prefix) + [str(p) for p in err["loc"]])
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"field {field!r}: {msg}" if field else msg)  # a check of the whole config names its fields
    return "; ".join(parts)


class Settings(BaseSettings):
    """Process settings from the environment. Secrets stay SecretStr and are never written anywhere."""

    model_config = SettingsConfigDict(env_prefix="LIFELOOM_", extra="ignore")

    home: Path = Path(".lifeloom")
    openai_api_key: SecretStr | None = Field(None, validation_alias="OPENAI_API_KEY")
    anthropic_api_key: SecretStr | None = Field(None, validation_alias="ANTHROPIC_API_KEY")


def gates_reference() -> str:
    """The README's reference of the `[gates]` table, generated from GateOptions (field, default, description), so
    it cannot drift from the model; `python -m schemas.config` prints it, and a test holds the README to it."""
    import json

    lines = ["| field | default | what it bounds |", "|---|---|---|"]
    defaults = GateOptions()
    for name, field in GateOptions.model_fields.items():
        value = getattr(defaults, name)
        shown = "the defaults of schemas/metrics.py `DEFAULT_MEASURE_GATES`" if name == "measures" else (
            json.dumps(value) if value is not None else "none")
        lines.append(f"| `{name}` | {shown} | {(field.description or '').replace('|', '/')} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(gates_reference())
