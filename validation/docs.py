"""Great Expectations Data Docs for one gate run: a file-mode GE context in a temporary folder whose
validation results are rendered into a static HTML site and copied to a target folder."""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

SITE = Path("gx") / "uncommitted" / "data_docs" / "local_site"
ASSETS = Path(__file__).with_name("docs_assets")
"""Scripts, styles and fonts the Data Docs pages load, vendored (docs_assets/README.md: versions and licences)."""
VENDOR = "static/vendor"
VENDORED = {
    "https://code.jquery.com/jquery-3.7.1.min.js": "jquery.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/popper.js/1.12.9/umd/popper.min.js": "popper.min.js",
    "https://maxcdn.bootstrapcdn.com/bootstrap/4.3.1/css/bootstrap.min.css": "bootstrap.min.css",
    "https://stackpath.bootstrapcdn.com/bootstrap/4.3.1/js/bootstrap.min.js": "bootstrap.min.js",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.css": "bootstrap-table.min.css",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.js": "bootstrap-table.min.js",
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/bootstrap-table-filter-control.min.css":
        "bootstrap-table-filter-control.min.css",
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/bootstrap-table-filter-control.css":
        "bootstrap-table-filter-control.min.css",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/extensions/filter-control/bootstrap-table-filter-control.min.js":
        "bootstrap-table-filter-control.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/css/bootstrap-datepicker.min.css":
        "bootstrap-datepicker.min.css",
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/js/bootstrap-datepicker.min.js":
        "bootstrap-datepicker.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.6.0/css/all.min.css": "fontawesome/css/all.min.css",
    "https://cdn.jsdelivr.net/npm/@forevolve/bootstrap-dark@1.1.0/dist/css/bootstrap-prefers-dark.css":
        "bootstrap-prefers-dark.min.css",
    "https://cdn.jsdelivr.net/npm/vega@5": "vega.min.js",
    "https://cdn.jsdelivr.net/npm/vega-lite@5": "vega-lite.min.js",
    "https://cdn.jsdelivr.net/npm/vega-embed@6": "vega-embed.min.js",
}
"""Each CDN address Great Expectations' pages load -> its vendored file under docs_assets/."""
_LOGO = re.compile(r"https://great-expectations-web-assets\.s3\.[a-z0-9-]+\.amazonaws\.com/[A-Za-z_-]+\.png[^\"')\s]*")
"""The logo the pages fetch from GE's bucket (with the run's time and the context's id in its query string)."""
_LOADED = re.compile(r"""<(?:script|img|iframe|source|link)\b[^>]*?\s(?:src|href)\s*=\s*["'](https?://[^"']+)["']"""
                     r"""|url\(\s*['"]?(https?://[^'")]+)""")
"""A resource a page loads (a script, image, frame or stylesheet; not a link a reader may follow)."""


class DocsSite:
    """Validates frames through a throwaway file-mode GE context, keeping the results for Data Docs."""

    def __init__(self) -> None:
        import great_expectations as gx
        from great_expectations.data_context.types.base import ProgressBarsConfig

        logging.getLogger("great_expectations").setLevel(logging.WARNING)
        self.root = Path(tempfile.mkdtemp(prefix="lifeloom-gx-"))
        self.context = gx.get_context(mode="file", project_root_dir=str(self.root))
        self.context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
        self.source = self.context.data_sources.add_pandas("lifeloom")

    def validate(self, name: str, df: Any, suite: Any, result_format: dict) -> Any:
        """Validate `df` against `suite` as a stored validation definition named `name`."""
        import great_expectations as gx

        batch = self.source.add_dataframe_asset(name).add_batch_definition_whole_dataframe("whole")
        suite = self.context.suites.add(suite)
        definition = self.context.validation_definitions.add(gx.ValidationDefinition(name=name, data=batch,
                                                                                      suite=suite))
        try:
            return definition.run(batch_parameters={"dataframe": df}, result_format=result_format)
        finally:
            release_batches(self.source)

    def publish(self, target: Path) -> Path:
        """Render the Data Docs site, make it load nothing from the network (`offline`) and copy it to `target`
        (replaced if present); drop the context."""
        try:
            self.context.build_data_docs()
            offline(self.root / SITE)
            if target.exists():
                shutil.rmtree(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(self.root / SITE, target)
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
        return target


def offline(site: Path) -> None:
    """Copy the vendored assets into `site` and point every page at them (relative to the page, so the site opens
    from disk anywhere); the logo comes from the site's own images. Raises ValueError naming any resource a page
    would still load from the network (a Great Expectations upgrade that adds one), so it is never shipped."""
    shutil.copytree(ASSETS, site / VENDOR, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.md"))
    for page in site.rglob("*.html"):
        up = "../" * (len(page.relative_to(site).parts) - 1)
        text = page.read_text(encoding="utf-8")
        for url, file in VENDORED.items():
            text = text.replace(f'"{url}"', f'"{up}{VENDOR}/{file}"')
        text = _LOGO.sub(f"{up}static/images/logo-long.png", text)
        left = sorted({a or b for a, b in _LOADED.findall(text)})
        if left:
            raise ValueError(f"{page.relative_to(site)} would load {', '.join(left)} from the network; vendor it in "
                             "validation/docs_assets and map it in validation/docs.py VENDORED")
        page.write_text(text, encoding="utf-8")


def release_batches(datasource: Any) -> None:
    """Drop the batches (and so the frames) a pandas datasource's execution engine keeps after a validation:
    Great Expectations caches every batch it loaded, by asset, for the life of the context."""
    manager = datasource.get_execution_engine().batch_manager
    manager.reset_batch_cache()
    manager.batch_data_cache.clear()
