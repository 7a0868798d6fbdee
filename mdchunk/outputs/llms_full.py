"""`llms-full.txt`: every page's Markdown in the order of `llms.txt`, within a token budget.

When the whole text fits `llms_full_max_tokens`, it is one file. Otherwise it is split along
the top-level sections of the navigation: `llms-full/<section>.txt`, a section too large for
one file cut between its pages into `llms-full/<section>-1.txt`, `-2`, ...; `llms-full.txt`
then lists those files. No file exceeds the budget unless one page alone does: that page gets a
file of its own, flagged where the files are listed.

Every count is exact without counting again: each page's part was counted where the page was
chunked, and parts are made so that their counts add up (`mdchunk.outputs.twins.page_block`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from mdchunk.outputs.twins import index_link, link_text
from mdchunk.outputs.writers import atomic_write, write_text

FULL_TXT = "llms-full.txt"
PARTS_FOLDER = "llms-full"


@dataclasses.dataclass(frozen=True, slots=True)
class FullPage:
    """A page's part of `llms-full`: its source path, exact token count and title."""

    source: str
    tokens: int
    title: str


@dataclasses.dataclass(frozen=True, slots=True)
class FullFile:
    """One file of `llms-full`, relative to the site folder, with the pages it holds."""

    path: str
    title: str
    pages: tuple[FullPage, ...]
    budget: int

    @property
    def tokens(self) -> int:
        """The file's exact token count."""
        return sum(page.tokens for page in self.pages)

    @property
    def over_budget(self) -> bool:
        """One page alone holds more tokens than the budget (the file holds only it)."""
        return self.tokens > self.budget


def plan_full(sections: Sequence[tuple[str, Sequence[FullPage]]], budget: int
              ) -> list[FullFile]:
    """The files of `llms-full` for `sections` (titles and pages, in order): one file when
    everything fits `budget`, else one per section, cut between pages where a section does
    not fit."""
    pages = tuple(page for _, section in sections for page in section)
    if sum(page.tokens for page in pages) <= budget:
        return [FullFile(FULL_TXT, "Documentation", pages, budget)]
    files: list[FullFile] = []
    slugs: set[str] = set()
    for title, section in sections:
        parts = _parts(section, budget)
        slug = _unique_slug(title, slugs)
        for number, part in enumerate(parts, start=1):
            name, label = (slug, title) if len(parts) == 1 else (
                f"{slug}-{number}", f"{title} ({number}/{len(parts)})")
            files.append(FullFile(f"{PARTS_FOLDER}/{name}.txt", label, part, budget))
    return files


def _parts(pages: Sequence[FullPage], budget: int) -> list[tuple[FullPage, ...]]:
    """`pages` cut into runs within `budget`, in order; a page over it alone is a run."""
    parts: list[tuple[FullPage, ...]] = []
    run: list[FullPage] = []
    for page in pages:
        if run and sum(held.tokens for held in run) + page.tokens > budget:
            parts.append(tuple(run))
            run = []
        run.append(page)
        if page.tokens > budget:
            parts.append(tuple(run))
            run = []
    if run:
        parts.append(tuple(run))
    return parts


def _unique_slug(title: str, taken: set[str]) -> str:
    """A file name from a section title (`Getting started` -> `getting-started`), unique."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"
    unique = slug
    for number in itertools.count(2):
        if unique not in taken:
            break
        unique = f"{slug}-{number}"
    taken.add(unique)
    return unique


def is_split(files: Sequence[FullFile]) -> bool:
    """Whether the text is split into files of `PARTS_FOLDER` (then `FULL_TXT` lists them)."""
    return [file.path for file in files] != [FULL_TXT]


def write_full(site_dir: Path, files: Sequence[FullFile], blocks: Iterator[str], *, name: str,
               summary: str, site_url: str, encoding: str) -> Path:
    """Write each file of `files`, taking the pages' parts from `blocks` in order (one page
    in memory at a time), and `llms-full.txt`; return its path."""
    for file in files:
        parts = itertools.islice(blocks, len(file.pages))

        def write(handle: IO[bytes], parts: Iterator[str] = parts) -> None:
            for part in parts:
                handle.write(part.encode("utf-8", "replace"))

        atomic_write(site_dir / file.path, write, durable=False)
    if is_split(files):
        lines = [f"# {name}", "", *([f"> {summary}", ""] if summary else []),
                 *listing(files, site_url, encoding), ""]
        write_text(site_dir / FULL_TXT, "\n".join(lines), durable=False)
    return site_dir / FULL_TXT


def listing(files: Sequence[FullFile], site_url: str, encoding: str) -> list[str]:
    """Where the whole text is, as Markdown lines: the one file, or the files it is split into
    with their token counts (a file over the budget says which page is alone in it)."""
    if not is_split(files):
        file = files[0]
        return [f"The whole documentation in one file: [{FULL_TXT}]"
                f"({index_link(FULL_TXT, site_url)}) ({file.tokens} tokens)."]
    budget = files[0].budget
    lines = [f"The whole documentation in {len(files)} files of at most {budget} {encoding} "
             "tokens each, in the order of the sections below:", ""]
    for file in files:
        flag = (f"; over the budget: the page {link_text(file.pages[0].title)} alone"
                if file.over_budget else "")
        lines.append(f"- [{link_text(file.title)}]({index_link(file.path, site_url)}): "
                     f"{file.tokens} tokens{flag}")
    return lines


def remove_stale_parts(site_dir: Path, files: Sequence[FullFile]) -> None:
    """Remove the files of `PARTS_FOLDER` an earlier build wrote that `files` does not hold
    (and the folder, when nothing is left in it)."""
    folder = site_dir / PARTS_FOLDER
    if not folder.is_dir():
        return
    current = {file.path.rsplit("/", 1)[-1] for file in files if is_split(files)}
    for path in folder.glob("*.txt"):
        if path.name not in current:
            with contextlib.suppress(OSError):
                path.unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()  # only when empty
