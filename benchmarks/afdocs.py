"""afdocs, the reference checker of the Agent-Friendly Documentation Spec, on sites built with
mdchunk: the score an agent-readiness audit gives them, check by check.

    npm install --prefix /tmp/afdocs afdocs          # once (Node.js 20 or newer)
    python benchmarks/afdocs.py --afdocs /tmp/afdocs/node_modules/.bin/afdocs
    python benchmarks/afdocs.py --afdocs ... --code /tmp/before     # another commit's mdchunk
    python benchmarks/afdocs.py --afdocs ... --serve                # served by `mdchunk serve`

Each site is built in a temporary folder (by `mkdocs` or `sphinx-build` in a child process, so
that `--code` can put another checkout first on its path), served with `python -m http.server`
on 127.0.0.1, and checked with `afdocs check --format json --score --sampling deterministic`,
the site's public url given as `--canonical-origin` (the pages link to it) and its url style as
`--url-path-pattern` (`html` for Sphinx's `html` builder). Never run as a test: it needs
Node.js and afdocs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.corpus import nodejs_site, nodejs_sphinx_project  # noqa: E402

Builder = Callable[[Path, Path, dict[str, str]], Path | None]
"""Builds a site under a folder from a repository checkout; returns the built site (None when
its sources are absent)."""


def _run(command: list[str], env: dict[str, str]) -> None:
    """Run a build; from the temporary folder, so that `python -m` puts no checkout of
    mdchunk before the one `--code` names."""
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, cwd=tempfile.gettempdir())


def _example_mkdocs(work: Path, code: Path, env: dict[str, str]) -> Path:
    project = work / "example-mkdocs"
    shutil.copytree(code / "example-site" / "mkdocs", project,
                    ignore=shutil.ignore_patterns("site", "site-*"))
    _run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(project / "mkdocs.yml")], env)
    return project / "site"


def _example_sphinx(work: Path, code: Path, env: dict[str, str], builder: str = "html") -> Path:
    source = work / f"example-sphinx-{builder}"
    shutil.copytree(code / "example-site" / "sphinx", source,
                    ignore=shutil.ignore_patterns("_build"))
    out = work / f"example-sphinx-{builder}-out"
    _run([sys.executable, "-m", "sphinx", "-q", "-b", builder, str(source), str(out)], env)
    return out


def _example_sphinx_dirhtml(work: Path, code: Path, env: dict[str, str]) -> Path:
    return _example_sphinx(work, code, env, "dirhtml")


def _nodejs_mkdocs(work: Path, code: Path, env: dict[str, str]) -> Path | None:
    config = nodejs_site(work / "nodejs-mkdocs")
    if config is None:
        return None
    _run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config)], env)
    return config.parent / "site"


def _nodejs_sphinx(work: Path, code: Path, env: dict[str, str]) -> Path | None:
    source = nodejs_sphinx_project(work / "nodejs-sphinx")
    if source is None:
        return None
    _run([sys.executable, "-m", "sphinx", "-q", "-j", "2", "-b", "html", str(source),
          str(work / "nodejs-sphinx-html")], env)
    return work / "nodejs-sphinx-html"


SITES: dict[str, tuple[Builder, str, str]] = {
    "example-mkdocs": (_example_mkdocs, "https://example.com/docs", "clean"),
    "example-sphinx": (_example_sphinx, "https://example.com/sphinx", "html"),
    "example-sphinx-dirhtml": (_example_sphinx_dirhtml, "https://example.com/sphinx", "clean"),
    "nodejs-mkdocs": (_nodejs_mkdocs, "https://nodejs.example/api", "clean"),
    "nodejs-sphinx": (_nodejs_sphinx, "https://nodejs.example/api", "html"),
}
"""Each site: how it is built, its public url, and its url style as afdocs names it
(`--url-path-pattern`: `clean` for directory urls, `html` for pages served as `page.html`,
whose twin `page.md` afdocs must not map to `page`)."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def served(site: Path, *, negotiate: bool = False, env: dict[str, str] | None = None
           ) -> Iterator[str]:
    """`site` served on 127.0.0.1 while the block runs: by `python -m http.server` (a static
    host), or with `negotiate` by `mdchunk serve` (twins for `Accept: text/markdown`)."""
    port = _free_port()
    command = ([sys.executable, "-m", "mdchunk.cli", "serve", str(site), "--port", str(port),
                "--no-mcp"] if negotiate else
               [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                "--directory", str(site)])
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            with contextlib.suppress(OSError):
                urllib.request.urlopen(url, timeout=1).close()
                break
            time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait()


def check(afdocs: str, url: str, canonical: str, pattern: str) -> dict[str, Any]:
    """afdocs' JSON report of the site at `url`, whose urls are of the style `pattern`."""
    result = subprocess.run(
        [afdocs, "check", url, "--format", "json", "--score", "--sampling", "deterministic",
         "--canonical-origin", canonical, "--url-path-pattern", pattern,
         "--request-delay", "20", "-q"],
        capture_output=True, text=True, check=False)
    if not result.stdout.strip():
        raise RuntimeError(f"afdocs gave no report: {result.stderr[-2000:]}")
    return json.loads(result.stdout)  # type: ignore[no-any-return]


_LINK = re.compile(r"\]\(([^)\s]+)\)")


def llms_links(site: Path, canonical: str) -> str:
    """What the reference parser (`llms-txt` on PyPI, when installed) reads of the site's
    llms.txt, and whether every link of llms.txt (and of llms-full.txt when it lists the
    files it is split into) leads to a file of the built site."""
    files = [site / "llms.txt", site / "llms-full.txt"]
    links = [url for path in files if path.is_file()
             for url in _LINK.findall(path.read_text(encoding="utf-8"))
             if path.name == "llms.txt" or "/llms-full/" in url]
    base = canonical.rstrip("/") + "/"
    missing = [url for url in links if not (site / urllib.parse.unquote(
        url.removeprefix(base))).is_file()]
    try:
        from llms_txt import parse_llms_file
    except ImportError:
        parsed = "llms-txt not installed"
    else:
        sections = parse_llms_file((site / "llms.txt").read_text(encoding="utf-8"))["sections"]
        parsed = (f"llms-txt parses {len(sections)} sections, "
                  f"{sum(len(entries) for entries in sections.values())} entries")
    return (f"  llms.txt: {parsed}; {len(links)} links, "
            + (f"{len(missing)} lead to no file: {missing[:3]}" if missing
               else "each to a file of the site"))


def describe(name: str, report: dict[str, Any]) -> list[str]:
    """The score, the category scores and every check that did not pass."""
    scoring = report["scoring"]
    lines = [f"{name}: {scoring['overall']} / 100 ({scoring['grade']})"]
    lines += [f"  {category}: {score['score']}"
              for category, score in scoring["categoryScores"].items()]
    lines += [f"  {result['status']:4}  {result['id']}: {result['message']}"
              for result in report["results"] if result["status"] != "pass"]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--afdocs", required=True, help="The afdocs command (its path).")
    parser.add_argument("--site", action="append", choices=sorted(SITES),
                        help="A site to check (repeatable; default: all).")
    parser.add_argument("--code", type=Path, default=REPO,
                        help="A checkout whose mdchunk and example site are used (default: this "
                             "one), e.g. `git archive COMMIT | tar -x -C /tmp/before`.")
    parser.add_argument("--json", type=Path, help="Write every report into this folder.")
    parser.add_argument("--serve", action="store_true",
                        help="Serve with `mdchunk serve` (content negotiation) instead of "
                             "python -m http.server (a static host).")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(args.code.resolve()), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    with tempfile.TemporaryDirectory(prefix="mdchunk-afdocs-") as folder:
        for name in args.site or list(SITES):
            build, canonical, pattern = SITES[name]
            site = build(Path(folder), args.code.resolve(), env)
            if site is None:
                print(f"{name}: sources absent, skipped")
                continue
            with served(site, negotiate=args.serve, env=env) as url:
                report = check(args.afdocs, url, canonical, pattern)
            if args.json is not None:
                args.json.mkdir(parents=True, exist_ok=True)
                (args.json / f"{name}.json").write_text(json.dumps(report, indent=1))
            print("\n".join([*describe(name, report), llms_links(site, canonical)]), flush=True)


if __name__ == "__main__":
    main()
