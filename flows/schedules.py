"""The schedules of the deployed flows as an operator reads them: cron, time zone, and the next scheduled run in
that zone (`make nightly` prints them; the Prefect UI's deployment list shows the cron without its time zone)."""

from __future__ import annotations

import asyncio


def describe() -> str:
    """One line per schedule: `schedule nightly/nightly: cron 0 2 * * * in Europe/Berlin (active); next run
    2026-12-07 02:00 CET` (the next run once the server's scheduler has created it, within a minute of deploying)."""
    return asyncio.run(_describe())


async def _describe() -> str:
    from zoneinfo import ZoneInfo

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        DeploymentFilter,
        DeploymentFilterId,
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.client.schemas.sorting import FlowRunSort

    lines = []
    async with get_client() as client:
        for deployment in await client.read_deployments():
            flow = await client.read_flow(deployment.flow_id)
            upcoming = await client.read_flow_runs(
                deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment.id])),
                flow_run_filter=FlowRunFilter(state=FlowRunFilterState(
                    type=FlowRunFilterStateType(any_=[StateType.SCHEDULED]))),
                sort=FlowRunSort.EXPECTED_START_TIME_ASC, limit=1)
            for schedule in deployment.schedules or []:
                cron = getattr(schedule.schedule, "cron", None)
                zone = getattr(schedule.schedule, "timezone", None) or "UTC"
                state = "active" if schedule.active else "paused"
                what = f"cron {cron}" if cron else str(schedule.schedule)
                line = f"schedule {flow.name}/{deployment.name}: {what} in {zone} ({state})"
                if upcoming and upcoming[0].expected_start_time is not None:
                    when = upcoming[0].expected_start_time.astimezone(ZoneInfo(zone))
                    line += f"; next run {when:%Y-%m-%d %H:%M %Z}"
                lines.append(line)
    return "\n".join(lines) or "no scheduled deployments"
