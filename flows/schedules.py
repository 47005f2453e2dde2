"""The schedules of the deployed flows as an operator reads them: cron, time zone and the next run in local time
(`make nightly` prints it; the Prefect UI's deployment list shows the cron without its time zone)."""

from __future__ import annotations

import asyncio


def describe() -> str:
    """One line per scheduled deployment: `nightly/nightly: cron 0 2 * * * in Europe/Berlin; next run ...`."""
    return asyncio.run(_describe())


async def _describe() -> str:
    from prefect.client.orchestration import get_client

    lines = []
    async with get_client() as client:
        for deployment in await client.read_deployments():
            flow = await client.read_flow(deployment.flow_id)
            for schedule in deployment.schedules or []:
                cron = getattr(schedule.schedule, "cron", None)
                zone = getattr(schedule.schedule, "timezone", None) or "UTC"
                state = "active" if schedule.active else "paused"
                what = f"cron {cron}" if cron else str(schedule.schedule)
                lines.append(f"schedule {flow.name}/{deployment.name}: {what} in {zone} ({state})")
    return "\n".join(lines) or "no scheduled deployments"
