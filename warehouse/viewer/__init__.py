"""The release viewer (`lifeloom view`): a static, self-contained site that shows a release's lives, conversations,
documents and questions with their evidence in context, opened from disk or served on loopback (site.py)."""

from warehouse.viewer.site import ViewResult, build_view

__all__ = ["ViewResult", "build_view"]
