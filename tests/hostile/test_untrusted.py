"""Untrusted content stays data: output paths stay in the site, file names cannot escape their
folder, every JSON file is valid UTF-8 without lone surrogates."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mdchunk import Chunker, ChunkOptions, PageInput
from mdchunk.outputs.page_output import page_records
from mdchunk.outputs.profiles.files import file_doc_name, files_layout
from mdchunk.outputs.writers import write_jsonl
from tests.conftest import SiteBuilder
from tests.hostile.conftest import build_sphinx
from tests.invariants import count_tokens

ESCAPING_OUTPUTS = ["../x.jsonl", "a/../../x.jsonl", "/tmp/x.jsonl", "C:\\x.jsonl", "C:x.jsonl",
                    "..\\x.jsonl", "a\\..\\..\\x.jsonl", "\\\\server\\share\\x.jsonl",
                    "\\x.jsonl", ""]


@pytest.mark.parametrize("output", ESCAPING_OUTPUTS)
def test_mkdocs_output_must_stay_inside_the_site(make_site: SiteBuilder, tmp_path: Path,
                                                 output: str) -> None:
    from mkdocs.exceptions import Abort, ConfigurationError

    with pytest.raises((Abort, ConfigurationError)):
        make_site({"index.md": "# Home\n"}, plugin={"output": output})
    assert not list(tmp_path.parent.glob("x.jsonl")) and not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize("output", ["../x.jsonl", "C:\\x.jsonl", "a\\..\\..\\x.jsonl"])
def test_sphinx_output_must_stay_inside_the_site(tmp_path: Path, output: str) -> None:
    code, _, out = build_sphinx(tmp_path, {"index.md": "# Home\n"},
                                f"mdchunk_output = {output!r}\n")
    assert code != 0
    assert not (tmp_path / "x.jsonl").exists() and not (out / "chunks.jsonl").exists()


HOSTILE_DOC_NAMES = ["../../etc/passwd", "..", ".", "a/../../b", "/abs/path", "C:\\win\\x",
                     "a\\..\\..\\b", "con", "a/./b", "~user", "a//b", "-rf", "a\x00b",
                     "\u202etxt.exe", "😀/😀", "a" * 300]


@pytest.mark.parametrize("doc_name", HOSTILE_DOC_NAMES)
def test_file_names_from_page_paths_cannot_escape(doc_name: str) -> None:
    name = f"doc_{file_doc_name(doc_name)}__ch0.json"  # files.file_path's file name
    # No separator of this system. (`\` and `:` are kept on POSIX, where they are ordinary
    # characters; a page path cannot hold them on Windows, where they would be separators.)
    assert "/" not in name and (os.sep == "/" or "\\" not in name)


def test_files_layout_stays_in_its_folder() -> None:
    chunker = Chunker(ChunkOptions(), counter=count_tokens, processed_at="2023-11-14T22:13:20Z")
    pages = [chunker.chunk_page(PageInput(html="<p>x</p>", source_path=f"{name}.md",
                                          url="x/", title="T"))
             for name in HOSTILE_DOC_NAMES[:12]]
    for path in files_layout(pages):
        resolved = (Path("/site") / path).resolve()
        assert resolved.parent == Path("/site/chunks"), path


LONE = "\ud800 \udfff \U0010ffff \ufffe \uffff \x00"


def test_json_is_utf8_without_lone_surrogates(tmp_path: Path) -> None:
    chunker = Chunker(ChunkOptions(), counter=count_tokens, processed_at="2023-11-14T22:13:20Z")
    page = chunker.chunk_page(PageInput(
        html=f"<h1 id='a\ud800'>Title {LONE}</h1><p>Body {LONE}</p>",
        source_path="p\udc80.md", url="p/", title=f"T {LONE}",
        meta={"key": LONE, LONE: [LONE]}))
    target = tmp_path / "chunks.jsonl"
    write_jsonl(target, page_records(page, ["native"])["native"])
    data = target.read_bytes()
    text = data.decode("utf-8")  # strict: raises on anything invalid
    for line in text.splitlines():
        json.loads(line)
    assert "\\ud800" not in text and "\\udfff" not in text and "\\udc80" not in text
    record = json.loads(text.splitlines()[0])
    assert "\x00" not in record["originalText"] + record["fileTitle"]


def test_the_inspector_keeps_page_text_as_data(tmp_path: Path) -> None:
    """The one HTML mdchunk renders: page text goes in as escaped data, shown via textContent
    (the browser side is tested in tests/test_inspector.py)."""
    from mdchunk import Chunker, ChunkOptions, PageInput
    from mdchunk.outputs.inspector import write_inspector

    hostile = ("<h1 id='x'>T</h1><pre><code>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
               "&lt;!-- \u2028 &amp;</code></pre><p>&lt;img src=x onerror=alert(1)&gt;</p>")
    page = Chunker(ChunkOptions()).chunk_page(PageInput(html=hostile, source_path="x.md",
                                                        url="x/", title="</title>"))
    assert "</script><script>" in page.markdown  # the text itself is kept, as data
    folder = write_inspector(tmp_path, [page], max_tokens=512).parent
    script = (folder / "data.js").read_text(encoding="utf-8")
    assert "<" not in script and ">" not in script and "&" not in script
    assert "\u2028" not in script and "\u2029" not in script
    assert "innerHTML" not in (folder / "inspector.js").read_text(encoding="utf-8")


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_duplicate_raw_ids_warn_and_keep_the_rest(engine: str, make_site: SiteBuilder,
                                                 tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    page = ('<h2 id="dup">First</h2>\n\n<p>Body one.</p>\n\n<h2 id="dup">Second</h2>\n\n'
            '<p>Body two.</p>\n')
    if engine == "mkdocs":
        site = make_site({"index.md": page})
        warnings = caplog.text
    else:
        code, warnings, site = build_sphinx(tmp_path / "s", {"index.md": page})
        assert code == 0
    assert "share the id 'dup'" in warnings
    from tests.invariants import Index, check_chain, check_offsets, check_tokens

    index = Index.load(site)
    for records in index.pages().values():
        check_chain(records)
        check_offsets(records, index.markdown(records[0]["pageUrl"]))
        for record in records:
            check_tokens(record, 512)
    if engine == "mkdocs":  # (the page has no H1: the first section joins its title, "Home")
        assert [r["sectionSlug"] for r in index.records] == ["", "dup"]
        assert index.records[0]["subHeaders"] == ["First"]
    else:  # (Sphinx titles a document by its first section: this one has none, nor a title)
        assert [r["sectionSlug"] for r in index.records] == ["dup", "dup"]
