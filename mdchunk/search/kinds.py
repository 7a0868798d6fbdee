"""Page kinds and the priors search gives them: what a page is (a guide, API reference, a
changelog, a blog or news post, an index page) and where its hits rank for a question.

A page's kind comes, first match wins, from:

1. its front matter: `search: {kind: changelog}` (beside Material's `search: {exclude,
   boost}`);
2. the site's `page_kinds` option: glob patterns over page urls and the kind of the pages they
   match (`{"changelog/*": changelog, "api/**": reference}`), kept in `chunks.sqlite`'s `meta`
   table (key `page_kinds`) by the `sqlite` format;
3. its url and title: a path segment or title such as `changelog`, `release-notes`, `news`,
   `history`, `what's new` (changelog), `blog` (blog), `genindex`, `tags` (index); a path
   segment `api` or `reference` (reference: not a title, as "Web Crypto API" in a site whose
   every page is reference);
4. else `guide`.

The priors (`reorder`) move hits by rank, never by score (fused scores of unrelated scales are
not comparable):

- hits of `changelog` and `blog` pages rank below every other hit, unless the question names a
  version (`2.4`, `v18`, `version 3`), a year or date, or asks about releases or news
  (`QUESTION_IN_TIME`); hits of `index` pages always rank below the others;
- among any `PAGE_WINDOW` consecutive sections at most `PAGE_SHARE` are of one page: a page's
  next section waits, behind the best sections of other pages, until the window has room for
  it (diversity across pages: not five sections of one API page, yet the fourth section of the
  page that answers comes back a few places down rather than below every other page's first
  sections);
- the best section of each main kind (guide, reference) among the first `KIND_REACH` hits
  ranks `KIND_SLOT`th or better, so that a task question keeps a guide section among API
  entries and an API question a reference entry among guides.

Every move depends on the order of the hits, never on how many are asked for: the first k
hits of a search are the first k of a longer one.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:  # (a build reads page kinds without a database: sqlite3 loads where one is read)
    import sqlite3

#: The kinds of page, in the order they are documented.
KINDS: tuple[str, ...] = ("guide", "reference", "changelog", "blog", "index")

#: Kinds whose hits rank below the others unless the question is about a time or version.
DATED_KINDS = frozenset({"changelog", "blog"})

#: Kinds whose hits always rank below the others (lists of links, not answers).
INDEX_KINDS = frozenset({"index"})

#: Kinds each of which keeps its best section among the first `KIND_SLOT` hits.
MAIN_KINDS: tuple[str, ...] = ("guide", "reference")

#: At most this many of any `PAGE_WINDOW` consecutive sections are of one page...
PAGE_SHARE = 3

#: ... (while sections of other pages are left to fill the window).
PAGE_WINDOW = 5

#: The rank (1-based) the best section of a main kind is moved up to, when it is lower...
KIND_SLOT = 3

#: ... but not beyond this rank (a section further down matches too little to be moved up).
KIND_REACH = 30

#: The `meta` key of `chunks.sqlite` holding the site's `page_kinds` option (JSON pairs).
META_KEY = "page_kinds"

#: Path segments and titles (lower case, `-`/`_`/space-separated) that name a kind.
_SEGMENTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("index", re.compile(r"(genindex|py-modindex|modindex|tags|sitemap)")),
    ("changelog", re.compile(
        r"(change[-_ ]?log|changes|release[-_ ]?notes|releases?|release[-_ ]history|history"
        r"|news|whats?[-_ ]?new|what[-_ ]s[-_ ]new|version[-_ ]history)")),
    ("blog", re.compile(r"blog")),
    ("reference", re.compile(r"(api|apis|reference|references|api[-_ ]reference|ref)")),
)
_TITLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("index", re.compile(r"^(index|general index|module index|python module index|tags)$")),
    ("changelog", re.compile(r"\b(change ?log|release notes|what'?s new|version history"
                             r"|release history)\b|^(releases?|history|news|changes)$")),
    ("blog", re.compile(r"^blog\b")),
)

#: A question about a time or a version: a version number, a year or date, or words asking
#: about releases and news.
QUESTION_IN_TIME = re.compile(
    r"\bv\d+\b|\b\d+\.\d+(\.\d+)*\b|\b(version|release)\s*\d+\b"
    r"|\b(1[89]|20)\d\d\b"
    r"|\b(versions?|releases?|released|changelog|release notes|what'?s new|news|blog"
    r"|announce(d|ment)?|introduced|since when|when was)\b",
    re.IGNORECASE)


class Ranked(Protocol):
    """What `reorder` needs of a hit: its section (`url`) and its page (`page_url`)."""

    @property
    def url(self) -> str: ...

    @property
    def page_url(self) -> str: ...


_H = TypeVar("_H", bound=Ranked)


def check_kind(kind: object) -> str | None:
    """Why `kind` is no page kind (None when it is one), for an option's message."""
    if isinstance(kind, str) and kind in KINDS:
        return None
    return f"{kind!r} is no page kind; kinds: {', '.join(KINDS)}"


def kind_of_url(page_url: str, title: str) -> str:
    """A page's kind from its url's path segments and its title (`guide` when nothing names
    another): `changelog/`, `release-notes.html`, `blog/2024/`, `api/fs.html`, a title
    `What's new`."""
    path = PurePosixPath(page_url.partition("#")[0])
    segments = [PurePosixPath(part).stem.lower() for part in path.parts]
    segments = [part for part in segments if part not in ("", "index")]
    for kind, pattern in _SEGMENTS:
        if any(pattern.fullmatch(segment) for segment in segments):
            return kind
    words = " ".join(title.lower().replace("-", " ").replace("_", " ").split())
    for kind, pattern in _TITLES:
        if pattern.search(words):
            return kind
    return "guide"


def _named_kind(front_matter: object) -> tuple[bool, object]:
    """Whether a page's front matter names a kind (`search: {kind: ...}`), and what it names."""
    search = front_matter.get("search") if isinstance(front_matter, Mapping) else None
    if not isinstance(search, Mapping) or "kind" not in search:
        return False, None
    return True, search["kind"]


def kind_from_front_matter(front_matter: object) -> str | None:
    """The kind a page's front matter gives (`search: {kind: changelog}`), if a known one."""
    _named, kind = _named_kind(front_matter)
    return kind if isinstance(kind, str) and kind in KINDS else None


def front_matter_kind_problem(front_matter: object) -> str | None:
    """What is wrong with the kind a page's front matter names (`search: {kind: ...}`), for a
    warning that names the page; None when it names a kind, or none."""
    named, kind = _named_kind(front_matter)
    problem = check_kind(kind) if named else None
    return None if problem is None else (
        f"front matter search.kind: {problem}; search ranks the page by its url and title")


def kind_from_patterns(page_url: str, patterns: Sequence[tuple[str, str]]) -> str | None:
    """The kind of the first `(glob, kind)` pair whose glob matches the page url (with or
    without its trailing `/`)."""
    for pattern, kind in patterns:
        if any(fnmatch.fnmatchcase(url, pattern) for url in (page_url, page_url.rstrip("/"))):
            return kind
    return None


def page_kinds(connection: sqlite3.Connection, chunk_ids: Iterable[str]) -> dict[str, str]:
    """The kind of the page of each chunk of `chunk_ids` (one chunk a page is enough: its
    pages share their front matter and title) in the index of `connection`, by page url:
    from the chunk's front matter and title, the index's `page_kinds` and its url."""
    wanted = sorted(set(chunk_ids))
    if not wanted:
        return {}
    patterns = stored_patterns(connection)
    marks = ", ".join("?" for _ in wanted)
    rows = connection.execute(  # by the primary key: no scan of the long rows
        f"SELECT pageUrl, fileTitle, metadata FROM chunks WHERE id IN ({marks})",
        wanted).fetchall()
    kinds: dict[str, str] = {}
    for page_url, title, metadata in rows:
        if page_url in kinds:
            continue
        front_matter = _loaded(metadata).get("frontMatter")
        kinds[page_url] = (kind_from_front_matter(front_matter)
                           or kind_from_patterns(page_url, patterns)
                           or kind_of_url(page_url, title or ""))
    return kinds


def stored_patterns(connection: sqlite3.Connection) -> list[tuple[str, str]]:
    """The `page_kinds` pairs an index holds (none where it was built without them)."""
    import sqlite3

    try:
        row = connection.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    except sqlite3.Error:
        return []
    pairs = _loaded(row[0]) if row else []
    if not isinstance(pairs, list):
        return []
    return [(str(pair[0]), str(pair[1])) for pair in pairs
            if isinstance(pair, list) and len(pair) == 2 and pair[1] in KINDS]


def _loaded(text: object) -> Any:
    if not isinstance(text, str):
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return {}


def in_time(question: str) -> bool:
    """Whether a question is about a time or a version (`QUESTION_IN_TIME`): then changelog and
    blog pages keep their rank."""
    return QUESTION_IN_TIME.search(question) is not None


def reorder(hits: Sequence[_H], kinds: Mapping[str, str], question: str) -> list[_H]:
    """`hits` (best first) moved by their pages' kinds and by diversity across pages and
    kinds (see the module's docstring)."""
    low = INDEX_KINDS if in_time(question) else INDEX_KINDS | DATED_KINDS
    is_low = [kinds.get(hit.page_url, "guide") in low for hit in hits]
    ordered = [hit for tier in (False, True) for hit in _spread_over_pages(
        [hit for hit, lowly in zip(hits, is_low, strict=True) if lowly is tier])]
    return _kinds_in_view(ordered, lambda hit: kinds.get(hit.page_url, "guide"))


def _spread_over_pages(hits: Sequence[_H]) -> list[_H]:
    """`hits` with no more than `PAGE_SHARE` sections of one page among any `PAGE_WINDOW`
    consecutive sections, while other pages' sections are left: each place goes to the best
    section left whose page has room in the window, else to the best section left. A
    section's chunks stay together, in their order, at their section's place; a page's
    sections keep their order."""
    pending = list(_by_section(hits).values())
    left = Counter(section[0].page_url for section in pending)
    placed: list[list[_H]] = []
    while pending:
        recent = Counter(section[0].page_url
                         for section in placed[max(0, len(placed) - PAGE_WINDOW + 1):])
        full = {page for page, count in recent.items() if count >= PAGE_SHARE}
        choice = 0
        if left.keys() - full:  # a page with room in the window has sections left
            choice = next(index for index, section in enumerate(pending)
                          if section[0].page_url not in full)
        section = pending.pop(choice)
        left[section[0].page_url] -= 1
        left += Counter()  # drops the pages with no section left
        placed.append(section)
    return [hit for section in placed for hit in section]


def _by_section(hits: Sequence[_H]) -> dict[str, list[_H]]:
    """The hits of each section (`url`), sections in the order of their best hit."""
    sections: dict[str, list[_H]] = {}
    for hit in hits:
        sections.setdefault(hit.url, []).append(hit)
    return sections


def _kinds_in_view(hits: list[_H], kind_of: Callable[[_H], str]) -> list[_H]:
    """`hits` with the best section of each main kind within the first `KIND_REACH` moved up
    to rank `KIND_SLOT` where it ranks lower (two such sections: to ranks `KIND_SLOT` - 1 and
    `KIND_SLOT`, in their order), with the other chunks of its section (they all follow its
    best, being of the same kind)."""
    firsts = [next((index for index, hit in enumerate(hits[:KIND_REACH])
                    if kind_of(hit) == kind), None) for kind in MAIN_KINDS]
    lifted = {hits[index].url for index in sorted(i for i in firsts if i is not None)
              if index >= KIND_SLOT}
    if not lifted:
        return hits
    moved = [hit for hit in hits if hit.url in lifted]
    rest = [hit for hit in hits if hit.url not in lifted]
    kept = KIND_SLOT - len(lifted)
    return rest[:kept] + moved + rest[kept:]
