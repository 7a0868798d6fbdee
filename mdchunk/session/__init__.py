"""One build of a site: the session an engine talks to (`IndexBuilder`: add a rendered page,
keep an unchanged one, finish), the page cache every chunked page goes through, and the worker
processes that chunk pages beside the engine."""

from mdchunk.session.builder import IndexBuilder
from mdchunk.session.finish import BuildSummary

__all__ = ["BuildSummary", "IndexBuilder"]
