"""Great Expectations Data Docs for one gate run: a file-mode GE context in a temporary folder whose
validation results are rendered into a static HTML site and copied to a target folder."""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any

SITE = Path("gx") / "uncommitted" / "data_docs" / "local_site"


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
        """Render the Data Docs site and copy it to `target` (replaced if present); drop the context."""
        try:
            self.context.build_data_docs()
            if target.exists():
                shutil.rmtree(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(self.root / SITE, target)
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
        return target


def release_batches(datasource: Any) -> None:
    """Drop the batches (and so the frames) a pandas datasource's execution engine keeps after a validation:
    Great Expectations caches every batch it loaded, by asset, for the life of the context."""
    manager = datasource.get_execution_engine().batch_manager
    manager.reset_batch_cache()
    manager.batch_data_cache.clear()
