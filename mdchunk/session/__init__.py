"""One build of a site: the session an engine talks to (`IndexBuilder`: add a rendered page,
keep an unchanged one, finish), the page cache every chunked page goes through, and the worker
processes that chunk pages beside the engine."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mdchunk.session.builder import IndexBuilder
    from mdchunk.session.finish import BuildSummary

__all__ = ["BuildSummary", "IndexBuilder"]


def __getattr__(name: str) -> Any:
    """`IndexBuilder` and `BuildSummary`, imported when first asked for: a worker process,
    which imports `mdchunk.session.worker_process` to chunk pages, never loads the build's
    session."""
    if name == "IndexBuilder":
        from mdchunk.session.builder import IndexBuilder

        return IndexBuilder
    if name == "BuildSummary":
        from mdchunk.session.finish import BuildSummary

        return BuildSummary
    raise AttributeError(f"module 'mdchunk.session' has no attribute {name!r}")
