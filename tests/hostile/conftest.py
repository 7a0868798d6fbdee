"""A per-test time limit (pytest-timeout is not a dependency) and helpers shared by the suite."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from tests.test_sphinx import CONF, make_project, sphinx_build

#: Seconds a hostile test may take before it counts as a hang (override: MDCHUNK_TEST_TIMEOUT).
TIME_LIMIT = float(os.environ.get("MDCHUNK_TEST_TIMEOUT", "30"))

SPHINX_CONF = CONF + "suppress_warnings = ['toc.not_included', 'myst.header']\n"


class Hang(Exception):  # noqa: N818 - reads as "the test hangs"
    """Raised inside a test that ran past its time limit."""


@pytest.fixture(autouse=True)
def time_limit(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that runs longer than TIME_LIMIT (SIGALRM; a `limit` marker overrides it).

    The alarm interrupts Python code (a loop in the packer, the parser's walk); builds that
    must also survive a hang inside C code run in a subprocess with a timeout instead.
    """
    if sys.platform == "win32" or not hasattr(signal, "setitimer"):
        yield
        return
    marker = request.node.get_closest_marker("limit")
    seconds = float(marker.args[0]) if marker else TIME_LIMIT

    def expire(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"{request.node.nodeid} ran longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "limit(seconds): time limit of a hostile test")


def build_sphinx(root: Path, pages: dict[str, str], conf: str = "", *args: str
                 ) -> tuple[int, str, Path]:
    """Build a Sphinx project of MyST `pages` (`conf` appended to conf.py) with sphinx-build;
    return the exit code, the warnings and the output folder."""
    source = make_project(root, pages, SPHINX_CONF + conf)
    out = root / "out"
    code, warnings = sphinx_build(source, out, "-b", "html", *args)
    return code, warnings, out
