"""deploy/prefect.yaml parses, validates as Prefect reads it, and builds the nightly deployment offline."""

from pathlib import Path

import pytest
import yaml

from flows.nightly import nightly

PREFECT_YAML = Path(__file__).resolve().parents[2] / "deploy" / "prefect.yaml"
ENV = {"LIFELOOM_ROOT": "/srv/lifeloom", "LIFELOOM_HOME": "/srv/lifeloom/.lifeloom", "LIFELOOM_TZ": "Europe/Berlin",
       "LIFELOOM_POOL": "lifeloom-process"}


@pytest.fixture
def config(monkeypatch) -> dict:
    """The file as `prefect deploy` sees it: environment placeholders ({{ $VAR }}) filled in."""
    from prefect.utilities.templating import apply_values

    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    return apply_values(yaml.safe_load(PREFECT_YAML.read_text()), {}, remove_notset=False)


def the_deployment(config: dict) -> dict:
    (found,) = [d for d in config["deployments"] if d["name"] == "nightly"]
    return found


def test_prefect_yaml_validates_with_prefects_own_model(config):
    from prefect.cli.deploy._models import PrefectYamlModel

    model = PrefectYamlModel.model_validate(config)
    assert [d.name for d in model.deployments] == ["nightly", "nightly-batch"]
    assert "{{" not in str(config), "every placeholder names a variable the Makefile sets"


def test_nightly_runs_at_two_in_the_configured_time_zone_on_a_process_pool(config):
    from prefect.client.schemas.schedules import CronSchedule

    d = the_deployment(config)
    assert d["entrypoint"] == "flows/nightly.py:nightly"
    assert d["work_pool"]["name"] == "lifeloom-process"
    (schedule,) = d["schedules"]
    cron = CronSchedule(cron=schedule["cron"], timezone=schedule["timezone"])
    assert cron.cron == "0 2 * * *" and cron.timezone == "Europe/Berlin"
    assert d["parameters"]["home"] == ENV["LIFELOOM_HOME"] and d["parameters"]["preset"] == "demo"
    steps = config["pull"]
    assert steps[0]["prefect.deployments.steps.set_working_directory"]["directory"] == ENV["LIFELOOM_ROOT"]


def test_entrypoint_loads_and_parameters_fit_the_flow(config):
    from prefect.flows import load_flow_from_entrypoint

    d = the_deployment(config)
    root = PREFECT_YAML.parents[1]
    flow = load_flow_from_entrypoint(str(root / d["entrypoint"]))
    assert flow.name == nightly.name == "nightly"
    flow.validate_parameters(d["parameters"])  # raises on an unknown or mistyped parameter


def test_deployment_object_builds_offline(config):
    from prefect.client.schemas.schedules import CronSchedule
    from prefect.deployments.runner import RunnerDeployment

    d = the_deployment(config)
    (schedule,) = d["schedules"]
    deployment = nightly.to_deployment(
        name=d["name"], parameters=d["parameters"], tags=d["tags"], description=d["description"],
        schedules=[CronSchedule(cron=schedule["cron"], timezone=schedule["timezone"])],
        work_pool_name=d["work_pool"]["name"], job_variables=d["work_pool"]["job_variables"],
        concurrency_limit=d["concurrency_limit"])
    assert isinstance(deployment, RunnerDeployment)
    assert deployment.flow_name == "nightly" and deployment.parameters["preset"] == "demo"
    assert deployment.schedules[0].schedule.timezone == "Europe/Berlin"
    assert set(deployment._parameter_openapi_schema.properties) >= {"preset", "config_file", "home"}


def test_dask_example_config_is_the_demo_corpus_on_dask():
    from schemas.config import load_config_file, load_preset

    cfg = load_config_file(PREFECT_YAML.parent / "demo-dask.toml")
    assert cfg.runner.kind == "dask" and cfg.runner.workers == 2
    assert cfg.config_hash() == load_preset("demo").config_hash()  # the runner is not part of the corpus


def test_the_batch_deployment_builds_the_demo_corpus_through_a_batch_api(config):
    """`nightly-batch`: the demo corpus on gpt-4.1-mini in batch mode, with a cost ceiling, inactive until turned
    on; its parameters fit the flow."""
    from prefect.flows import load_flow_from_entrypoint

    from schemas.config import load_config_file, load_preset

    (d,) = [d for d in config["deployments"] if d["name"] == "nightly-batch"]
    root = PREFECT_YAML.parents[1]
    load_flow_from_entrypoint(str(root / d["entrypoint"])).validate_parameters(d["parameters"])
    assert d["schedules"][0]["active"] is False and d["concurrency_limit"] == 1
    cfg = load_config_file(root / d["parameters"]["config_file"])
    assert cfg.provider.name == "openai" and cfg.provider.mode == "batch" and cfg.limits.max_cost_usd == 5.0
    demo = load_preset("demo")
    assert cfg.stages == demo.stages and cfg.gates == demo.gates and cfg.days == demo.days
