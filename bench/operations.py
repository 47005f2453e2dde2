"""Operations figures (issue 9): cold build, unchanged rebuild and rebuild after one prompt edit of the
demo and rhelm presets through `lifeloom build`, and the orchestration overhead of Prefect.

`python -m bench.operations` prints Markdown; `make bench` adds it to bench/results.md.

- cold / warm / after edit: wall time of `lifeloom build --preset P --home H` in a fresh process (so it
  includes Python start-up and Prefect's temporary server), first with an empty H, then unchanged, then
  after appending a Jinja comment to prompts/journal.jinja (the template hash changes, the rendered
  prompt does not: the sources stage and everything downstream of it re-run, no model call is new).
- dask: a cold build in another fresh data root with `--runner dask` (a LocalCluster of two worker
  processes, so both cores work), and whether its release has the default runner's content hash.
- tree peak: for the cold builds on both runners, the largest sum of PSS (proportional set size, so
  shared library pages count once) over the `lifeloom build` process and all its descendants (the
  temporary Prefect server, and on Dask the worker processes), sampled every 0.25 s from /proc.
- overhead: in one process, after Prefect's server is up, `build_corpus` on a fresh data root against
  the same stages called directly in a loop (no Prefect, no landing, no gates); the ratio is
  flow time / direct time. (Results before commit b1f8e04 left the companion stage out of the loop.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EDITED_PROMPT = ROOT / "prompts" / "journal.jinja"
PRESETS = ("demo", "rhelm")

_OVERHEAD_SCRIPT = r"""
import sys, tempfile, time, json
from prefect import flow
from flows.build import build_corpus
from schemas.config import load_preset
from schemas.corpus import Corpus
from schemas.config import ProviderConfig
from tasks import companion, verify
from tasks.dialogue import stage as dialogue
from tasks.world import loop
from tasks.world import profile
from tasks.questions import review
from tasks.questions import stage as questions
from tasks.sources import stage as sources
from tasks.llm.gateway import Gateway

@flow
def warm_up():
    return 1

warm_up()
config = load_preset(sys.argv[1])
with tempfile.TemporaryDirectory() as home:
    t0 = time.perf_counter()
    build_corpus(config=config, home=home)
    flow_s = time.perf_counter() - t0
t0 = time.perf_counter()
for pid, seed in zip(profile.persona_ids(config), profile.seed_texts(config)):
    gw = Gateway(ProviderConfig())
    persona = profile.enrich_persona(config, pid, seed, gw)
    world = loop.simulate(config, persona, gw)
    docs = sources.write_sources(config, persona, world, gw)
    talk = dialogue.write_dialogue(config, persona, world, docs.documents, gw)
    corpus = Corpus(documents=docs.documents, chunks=docs.chunks, bullets=talk.bullets,
                    sessions=talk.sessions, turns=talk.turns)
    qset = questions.write_questions(config, persona, world, corpus)
    kept, _ = review.review_questions(persona, world, corpus, qset, config)
    verify.verify_persona(persona, world, corpus, kept)
    companion.build_companion(config, persona, world, corpus, gw)
direct_s = time.perf_counter() - t0
print(json.dumps({"flow_s": round(flow_s, 2), "direct_s": round(direct_s, 2)}))
"""


def _children() -> dict[int, list[int]]:
    """Parent pid -> child pids, for every process /proc shows."""
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def tree_pss_mb(root: int) -> float:
    """Sum of PSS over `root` and its descendants, in MB (0 for a process gone meanwhile)."""
    tree, total_kb, todo = _children(), 0, [root]
    while todo:
        pid = todo.pop()
        todo += tree.get(pid, [])
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
                    break
        except OSError:
            continue
    return total_kb / 1024


def _build(preset: str, home: str, *extra: str) -> tuple[float, float]:
    """Wall time and process-tree peak PSS (MB) of one `lifeloom build`. Its output goes to a file, not a
    pipe: a child that outlives the build (a temporary Prefect server left behind) would otherwise hold the
    pipe open and hang the bench."""
    lifeloom = Path(sys.executable).parent / "lifeloom"
    command = [str(lifeloom), "build", "--preset", preset, "--home", home, *extra]
    peak = [0.0]
    with tempfile.TemporaryFile("w+") as log:
        started = time.perf_counter()
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)

        def sample() -> None:
            while proc.poll() is None:
                peak[0] = max(peak[0], tree_pss_mb(proc.pid))
                time.sleep(0.25)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            code = proc.wait(timeout=3600)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            code = "timeout (1 h)"
        wall = round(time.perf_counter() - started, 2)
        sampler.join()
        if code != 0:
            log.seek(0)
            raise SystemExit(f"bench: {' '.join(command)} failed ({code}):\n{log.read()[-2000:]}")
    return wall, round(peak[0], 1)


def rebuild_times(preset: str) -> dict:
    """Cold, unchanged and after-one-prompt-edit build times of `preset` in one data root."""
    original = EDITED_PROMPT.read_text()
    with tempfile.TemporaryDirectory() as home:
        cold, cold_tree = _build(preset, home, "--runner", "default")  # rhelm's preset asks for Dask itself
        warm, _ = _build(preset, home, "--runner", "default")
        default_hash = _content_hash(home, preset)
        try:
            EDITED_PROMPT.write_text(original + "{# bench: a template edit that renders the same prompt #}\n")
            edited, _ = _build(preset, home, "--runner", "default")
        finally:
            EDITED_PROMPT.write_text(original)
    with tempfile.TemporaryDirectory() as home:
        dask, dask_tree = _build(preset, home, "--runner", "dask")
        same = _content_hash(home, preset) == default_hash
    return {"preset": preset, "cold_s": cold, "warm_s": warm, "prompt_edit_s": edited,
            "warm_share": round(warm / cold, 3), "dask_cold_s": dask, "dask_same_content": same,
            "cold_tree_peak_mb": cold_tree, "dask_tree_peak_mb": dask_tree}


def _content_hash(home: str, preset: str) -> str:
    """The content hash of the first release of `preset` under `home`."""
    import json

    return json.loads((Path(home) / "releases" / preset / "v0001" / "manifest.json").read_text())["content_hash"]


def overhead(preset: str) -> dict:
    """Prefect flow time against the same stages called directly, in one warmed-up process."""
    import json

    done = subprocess.run([sys.executable, "-c", _OVERHEAD_SCRIPT, preset], capture_output=True, text=True,
                          cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"bench: overhead run failed:\n{done.stderr[-2000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return {"preset": preset, **figures, "ratio": round(figures["flow_s"] / figures["direct_s"], 2)}


def _yes(flag: bool | None) -> str:
    return {True: "yes", False: "**no**", None: "-"}[flag]


def run() -> dict:
    return {"rebuilds": [rebuild_times(p) for p in PRESETS], "overhead": [overhead(p) for p in PRESETS]}


def markdown(result: dict) -> list[str]:
    lines = ["", "## Rebuilds and orchestration overhead", "",
             "`lifeloom build --preset P --runner default --home H` (threads), fresh process each time; "
             "edit = a Jinja comment appended to "
             "prompts/journal.jinja (`python -m bench.operations`).", "",
             "| preset | cold (s) | unchanged rebuild (s) | warm / cold | after one prompt edit (s) "
             "| cold, `--runner dask` (s) | same content on Dask | cold tree peak (MB) | Dask tree peak (MB) |",
             "|---|---:|---:|---:|---:|---:|---|---:|---:|"]
    lines += [f"| {r['preset']} | {r['cold_s']} | {r['warm_s']} | {r['warm_share']} | {r['prompt_edit_s']} | "
              f"{r.get('dask_cold_s', '-')} | {_yes(r.get('dask_same_content'))} | {r.get('cold_tree_peak_mb', '-')} | "
              f"{r.get('dask_tree_peak_mb', '-')} |" for r in result["rebuilds"]]
    lines += ["", "`--runner dask`: a fresh data root built on a Dask LocalCluster of 2 worker processes (what the "
              "rhelm preset's `[runner]` asks for) "
              "(`lifeloom build --preset P --runner dask --home H`), its content hash compared with the "
              "default runner's release. Tree peak: the largest sum of PSS over the build process and all its "
              "descendants (temporary Prefect server, Dask workers), sampled every 0.25 s from /proc."]
    lines += ["", "| preset | build_corpus, server warm (s) | stages called directly (s) | ratio |",
              "|---|---:|---:|---:|"]
    lines += [f"| {r['preset']} | {r['flow_s']} | {r['direct_s']} | {r['ratio']} |" for r in result["overhead"]]
    return lines


if __name__ == "__main__":
    print("\n".join(markdown(run())))
