"""The release viewer at rhelm's scale (issue 28): how long `lifeloom view` takes and how large the site is, and how
long its pages take to open from disk in headless Chromium with the network refused (the browser's own start, an
empty page, measured alone beside them).

`python -m bench.viewer [RELEASE_FOLDER]` measures an existing release; without one it builds the rhelm preset
into a temporary data root first (about four minutes on two cores).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGES = ("index.html", "questions.html", "persona/p0003.html", "persona/p0003/sessions.html?m=2024-07",
         "persona/p0003/documents.html", "search.html?persona=p0003&q=coffee")


def _chromium_seconds(url: str, profile: Path) -> float:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    start = time.perf_counter()
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--no-first-run", "--disable-sync", f"--user-data-dir={profile}",
                    "--proxy-server=127.0.0.1:9", "--dump-dom", url], capture_output=True, timeout=120)
    return round(time.perf_counter() - start, 2)


def measure(release: Path, work: Path) -> dict:
    """Write the viewer of `release` under `work` and time its pages."""
    lifeloom = Path(sys.executable).parent / "lifeloom"
    site = work / "site"
    start = time.perf_counter()
    done = subprocess.run([str(lifeloom), "view", "--release", str(release), "--out", str(site)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"bench.viewer: lifeloom view failed:\n{done.stderr[-2000:]}")
    seconds = round(time.perf_counter() - start, 2)
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    out = {"release": f"`{release}`", "write_s": seconds, "size_mb": round(size / 2**20, 1),
           "files": sum(1 for p in site.rglob("*") if p.is_file()), "command": "lifeloom view --release R --out S"}
    if shutil.which("chromium") or shutil.which("chromium-browser"):
        out["browser_start_s"] = _chromium_seconds("about:blank", work / "p0")
        out["pages_s"] = {page: _chromium_seconds(f"{(site / page.split('?')[0]).as_uri()}"
                                                  + (f"?{page.split('?')[1]}" if "?" in page else ""), work / f"p{n}")
                          for n, page in enumerate(PAGES, 1)}
    return out


def run(release: str | None = None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if release is None:
            lifeloom = Path(sys.executable).parent / "lifeloom"
            built = subprocess.run([str(lifeloom), "build", "--preset", "rhelm", "--home", str(work / "home")],
                                   capture_output=True, text=True)
            if built.returncode != 0:
                raise SystemExit(f"bench.viewer: the rhelm build failed:\n{built.stderr[-2000:]}")
            folder = work / "home" / "releases" / "rhelm" / "v0001"
            result = measure(folder, work)
            result["release"] = "a fresh `lifeloom build --preset rhelm` (v0001)"
            return result
        return measure(Path(release), work)


def markdown(result: dict) -> list[str]:
    lines = ["", "## Release viewer (rhelm)", "", f"`{result['command']}` on {result['release']}: "
             f"{result['write_s']} s, {result['size_mb']} MiB in {result['files']} files (target: under 200 MB).", ""]
    if "pages_s" in result:
        lines += [f"Headless Chromium, network refused, opening each page from disk (the browser's own start, an "
                  f"empty page: {result['browser_start_s']} s; target: under 2 s a page):", "",
                  "| page | seconds |", "|---|---:|"]
        lines += [f"| `{page}` | {secs} |" for page, secs in result["pages_s"].items()]
    return lines


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1] if len(sys.argv) > 1 else None), indent=2))
