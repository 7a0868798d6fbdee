"""What leads a block stays with it: a heading with the start of its content, a list item's
lead-in with its nested list. Real MkDocs and Sphinx (MyST) builds, read from disk; every index
is checked with `tests.invariants.check_index`, whose `check_headings` says the rule."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SiteBuilder
from tests.hostile.conftest import build_sphinx
from tests.invariants import Index, check_index, count_tokens, heading_level

Build = Callable[..., Index]
WORDS = ["builder", "directive", "role", "domain", "autodoc", "napoleon", "intersphinx",
         "toctree", "parallel", "warning", "index", "search", "theme", "template", "locale"]


def sentences(count: int, words: int, offset: int = 0) -> list[str]:
    """`count` different sentences of `words` words (deterministic)."""
    cycle = itertools.cycle(WORDS)
    for _ in range(offset):
        next(cycle)
    return [" ".join(next(cycle) for _ in range(words)).capitalize() + f" (#{number})."
            for number in range(count)]


@pytest.fixture(params=["mkdocs", "sphinx"])
def build(request: pytest.FixtureRequest, make_site: SiteBuilder, tmp_path: Path) -> Build:
    """Build Markdown `text` as the home page of a site of the parameter's engine, with the
    mdchunk options `options`; return its index."""

    def mkdocs(text: str, **options: Any) -> Index:
        return Index.load(make_site({"index.md": text}, plugin=options))

    def sphinx(text: str, **options: Any) -> Index:
        conf = "".join(f"mdchunk_{name} = {value!r}\n" for name, value in options.items())
        code, warnings, out = build_sphinx(tmp_path / "sphinx", {"index.md": text}, conf)
        assert code == 0, warnings
        return Index.load(out)

    return mkdocs if request.param == "mkdocs" else sphinx


def changelog() -> str:
    """A changelog as Sphinx's and many others are written: a version heading with no text of
    its own, its changes under subsections; an old release whose items lead nested lists
    (`- Markup:`); a version with one line, and one with nothing at all."""
    parts = ["# Changelog\n"]
    for version in range(9, 0, -1):
        parts.append(f"## 2.{version}.0 (2025-12-{version:02d})\n")
        for number, title in enumerate(("Bugs fixed", "Features added")):
            parts.append(f"### {title}\n")
            parts += [f"- {line}" for line in sentences(3, 12, version + number)]
            parts.append("")
    parts.append("## 0.6 (2009-03-24)\n\n### New features added\n\n- Builders:\n")
    parts += [f"    - {line}" for line in sentences(10, 15)]
    parts.append("\n- Markup:\n")
    parts += [f"    - {line}" for line in sentences(40, 18, 5)]
    parts.append("\n- Other changes:\n")
    parts += [f"    - {line}" for line in sentences(4, 10, 2)]
    parts.append("\n## 0.5 (2009-01-01)\n\nFirst public release.\n\n## 0.1 (2008-01-01)\n")
    return "\n".join(parts) + "\n"


def chunk_starting(index: Index, line: str) -> dict[str, Any]:
    """The one chunk that starts with `line`, after the headings that lead it."""
    found = []
    for record in index.records:
        lines = [text for text in record["originalText"].split("\n") if text.strip()]
        leading = list(itertools.takewhile(heading_level, lines))
        if line in leading or lines[len(leading):len(leading) + 1] == [line]:
            found.append(record)
    (record,) = found
    return record


def after(record: dict[str, Any], line: str) -> str:
    """The chunk's text from `line` on."""
    text = record["originalText"]
    return text[text.index(line):]


def test_a_version_heading_travels_with_its_first_change(build: Build) -> None:
    index = build(changelog())
    check_index(index, max_tokens=512)
    for version in range(9, 0, -1):
        title = f"2.{version}.0 (2025-12-{version:02d})"
        record = chunk_starting(index, f"## {title}")
        assert after(record, f"## {title}").startswith(
            f"## {title}\n\n### Bugs fixed\n\n- {sentences(1, 12, version)[0]}")
        # The chunk links to the version; the first to the page title, which leads it too.
        assert record["headerPath"][-1] == (title if version < 9 else "Changelog")
    alone = [r for r in index.records if all(
        heading_level(line) for line in r["originalText"].split("\n") if line.strip())]
    assert [r["originalText"] for r in alone] == ["## 0.1 (2008-01-01)"]  # (no body at all)
    assert alone[0]["flags"]["smallChunk"] and alone[0]["flags"]["smallChunkReason"] == (
        "cannot_merge")
    brief = chunk_starting(index, "## 0.5 (2009-01-01)")  # an H2 with its brief text: not weak
    assert brief["tokenStats"]["tokens"] < 50 and not brief["flags"]["smallChunk"]


def test_a_lead_in_travels_with_its_nested_list(build: Build) -> None:
    index = build(changelog())
    markup = chunk_starting(index, "- Markup:")
    assert sentences(1, 18, 5)[0] in markup["originalText"]  # (its first nested item)
    for record in index.records:
        last = record["originalText"].rstrip().rsplit("\n", 1)[-1]
        assert not re.fullmatch(r"- (Builders|Markup|Other changes):", last), record["id"]
    pieces = [r for r in index.records if r["headerPath"][-1] == "New features added"]
    assert len(pieces) > 2  # (the list is cut: between items, at any depth)
    assert all(r["tokenStats"]["embedTokens"] <= 512 for r in pieces)


def test_a_heading_travels_with_a_body_that_fits_only_without_it(build: Build) -> None:
    """A section whose list fits the budget alone, but not with its heading: the heading
    starts the chunk with the list's first items (the list is cut, rather than the heading
    set apart)."""
    budget = 100  # (`max_tokens_bounds: originalText`: the budget bounds the text alone)
    heading = "## `execFileSync(file[, args][, options])`"
    items = [f"- `option{i}` {line}" for i, line in enumerate(sentences(30, 6))]
    body = next("\n".join(items[:n]) for n in range(1, len(items))
                if count_tokens(f"{heading}\n\n" + "\n".join(items[:n])) > budget)
    assert count_tokens(body) <= budget
    text = f"# API\n\nThe functions of the module.\n\n{heading}\n\n{body}\n\n## Next\n\nEnd.\n"
    index = build(text, max_tokens=budget, min_tokens=0, max_tokens_bounds="originalText")
    check_index(index, max_tokens=budget)
    record = chunk_starting(index, heading)
    assert record["originalText"].startswith(f"{heading}\n\n{items[0]}")
    assert record["headerPath"][-1].startswith("execFileSync(")
    assert body in index.markdown(record["pageUrl"])  # (the page Markdown holds the list)


def test_a_subsection_heading_never_ends_the_chunk_before_its_own(make_site: SiteBuilder
                                                                  ) -> None:
    """A deep section with no text of its own, in a section too large to be one chunk: its
    heading goes with its first subsection, not onto the end of the chunk before."""
    blocks = ["# Permissions\n", " ".join(sentences(5, 12, 3)) + "\n", "## Permission model\n",
              " ".join(sentences(4, 12)) + "\n", "#### Features\n"]
    for number in range(6):
        blocks += [f"##### Feature {number}\n", " ".join(sentences(6, 15, number)) + "\n"]
    index = Index.load(make_site({"index.md": "\n".join(blocks)}))
    check_index(index, max_tokens=512)
    record = chunk_starting(index, "#### Features")
    assert record["originalText"].startswith("#### Features\n\n##### Feature 0\n\n")
    assert record["headerPath"][-1] == "Features"
    assert not any(r["originalText"].endswith("#### Features") for r in index.records)


def test_an_entry_without_text_travels_with_the_entry_after_it(build: Build) -> None:
    """Two names for one thing (an alias: two signatures sharing one description) are two
    headings, the first with no text of its own: it starts the chunk of the description, never
    the end of the chunk before, where its meaning would be cut off from it."""
    entries = [f"#### `variable{number}`\n\n{line}\n" for number, line in
               enumerate(sentences(11, 34))]  # (sections of their own, not small)
    text = ("# Templating\n\nThe variables of a template.\n\n## Builtin templates\n\n"
            "What they hold.\n\n### Global variables\n\nEvery template sees them.\n\n"
            + "\n".join(entries)
            + "\n#### `master_doc`\n\n#### `root_doc`\n\nThe name of the root document, by "
            "either of its names. " + " ".join(sentences(6, 14, 3))  # (a section, not small)
            + "\n\n#### `version`\n\nThe version of the project.\n")
    index = build(text)
    check_index(index, max_tokens=512)
    record = chunk_starting(index, "#### `root_doc`")
    assert after(record, "#### `master_doc`").startswith(
        "#### `master_doc`\n\n#### `root_doc`\n\nThe name of the root document")
    assert not any(r["originalText"].rstrip().endswith("#### `master_doc`")
                   for r in index.records)
