"""The natural-question benchmark's own parts (benchmarks/questions.py) and its question sets.

The question files are checked as data; their gold sections are resolved on real builds of the
example sites (and of the Node.js docs where Debian's nodejs-doc is installed, marked slow); the
hit rules and metrics are checked on a real build, where a right ranking must score full marks
and the same hits handed to the wrong questions must score low.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from benchmarks.question_files import parse_question_file
from benchmarks.questions import (
    KINDS,
    SITES,
    BuiltSite,
    Question,
    Section,
    build_site,
    first_hit,
    gold_errors,
    load_questions,
    main,
    mdchunk_hit,
    read_built,
    score_ranks,
    span_hit,
)
from tests.corpus import NODEJS_API

EXAMPLE_SITES = ("example-mkdocs", "example-sphinx")


@pytest.fixture(scope="module")
def example_mkdocs(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The example MkDocs site, built once with the plugin as the benchmark builds it."""
    output = build_site("example-mkdocs", tmp_path_factory.mktemp("questions") / "site")
    assert output is not None
    return read_built("example-mkdocs", output)


# --- The question files --------------------------------------------------------------------------


def test_question_files_are_well_formed() -> None:
    every = load_questions()
    assert set(every) == set(SITES)
    questions = [question for asked in every.values() for question in asked]
    assert len(questions) >= 70
    assert len({question.text.lower() for question in questions}) == len(questions)
    for site, asked in every.items():
        dev = [question for question in asked if question.split == "dev"]
        # Enough questions to tune on and enough held out to report on, on every site.
        assert len(dev) >= 10 and len(asked) - len(dev) >= 20, site
        assert {question.kind for question in asked} == set(KINDS), site
    for question in questions:
        assert question.text and question.gold, question.id
        assert all("#" in url for url in question.gold), question.id  # a section, not a page
        assert len(set(question.gold)) == len(question.gold), question.id


def test_load_questions_keeps_only_the_split_asked() -> None:
    dev, test = load_questions(split="dev"), load_questions(split="test")
    every = load_questions()
    for site, asked in every.items():
        assert len(dev[site]) + len(test[site]) == len(asked)
        assert {q.split for q in dev[site]} == {"dev"} and {q.split for q in test[site]} == {"test"}


@pytest.mark.parametrize(("entry", "message"), [
    ({"id": "x1", "split": "train", "kind": "task", "question": "q?", "gold": ["a/#b"]},
     "x1.*split must be one of"),
    ({"id": "x2", "split": "dev", "kind": "howto", "question": "q?", "gold": ["a/#b"]},
     "x2.*kind must be one of"),
    ({"id": "x3", "split": "dev", "kind": "task", "question": "q?"}, "x3.*missing gold"),
    ({"id": "x4", "split": "dev", "kind": "task", "question": "q?", "gold": "a/#b"},
     "x4.*gold must be a list"),
])
def test_a_malformed_question_is_named(entry: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_question_file({"site": "nodejs", "questions": [entry]}, "nodejs.yaml")


def test_a_file_for_an_unknown_site_is_rejected() -> None:
    with pytest.raises(ValueError, match="needs `site:`"):
        parse_question_file({"site": "elsewhere", "questions": []}, "elsewhere.yaml")


# --- The gold sections on real builds ------------------------------------------------------------


@pytest.mark.parametrize("site", EXAMPLE_SITES)
def test_every_gold_section_resolves_on_a_real_build(site: str, tmp_path: Path) -> None:
    output = build_site(site, tmp_path / site)
    assert output is not None
    built = read_built(site, output)
    asked = load_questions()[site]
    assert gold_errors(asked, built) == []
    assert all(url in built.sections for question in asked for url in question.gold)


@pytest.mark.slow
def test_every_gold_section_resolves_on_the_nodejs_docs(tmp_path: Path) -> None:
    if not NODEJS_API.is_dir():
        pytest.skip(f"the Node.js API docs are not installed at {NODEJS_API}")
    output = build_site("nodejs", tmp_path / "nodejs")
    assert output is not None
    assert gold_errors(load_questions()["nodejs"], read_built("nodejs", output)) == []


def test_a_missing_gold_section_is_an_error_naming_the_question(
        example_mkdocs: BuiltSite) -> None:
    broken = [Question("zz1", "example-mkdocs", "test", "task", "install on mars?",
                       ("getting-started/install/#mars",)),
              Question("zz2", "example-mkdocs", "test", "task", "the moon?",
                       ("moon/#landing",)),
              Question("zz3", "example-mkdocs", "test", "task", "fine?",
                       ("getting-started/install/#linux",))]
    errors = gold_errors(broken, example_mkdocs)
    assert len(errors) == 2
    assert errors[0].startswith("zz1: getting-started/install/#mars: no element id 'mars'")
    assert errors[1].startswith("zz2: moon/#landing: no built page")


# --- Hits and metrics ----------------------------------------------------------------------------


def test_metrics_of_known_ranks() -> None:
    assert first_hit([False, False, True, True]) == 3
    assert first_hit([False] * 10 + [True]) == 0  # past MRR@10
    values = score_ranks([1, 3, 0, 7, 5, 6])
    assert values["Hit@1"] == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert values["Hit@5"] == [1.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    assert values["MRR@10"] == pytest.approx([1.0, 1 / 3, 0.0, 1 / 7, 1 / 5, 1 / 6])


def holding_chunk(built: BuiltSite, gold: Section) -> str:
    """The id of the chunk that holds the gold section's heading."""
    return next(chunk_id for chunk_id, span in built.chunk_spans.items()
                if span.page == gold.page and span.start <= gold.start < span.end)


def test_right_hits_score_full_marks_and_the_same_hits_shuffled_score_low(
        example_mkdocs: BuiltSite) -> None:
    asked = load_questions()["example-mkdocs"]
    right = [example_mkdocs.sections[question.gold[0]] for question in asked]
    shifted = right[len(right) // 2:] + right[:len(right) // 2]  # other questions' answers

    def ranks(found: list[Section]) -> list[int]:
        return [first_hit([any(mdchunk_hit(hit.url, holding_chunk(example_mkdocs, hit), gold,
                                           example_mkdocs)
                               for gold in (example_mkdocs.sections[url] for url in q.gold))
                           for hit in [section]])
                for q, section in zip(asked, found, strict=True)]

    assert score_ranks(ranks(right))["Hit@1"] == [1.0] * len(asked)
    assert sum(score_ranks(ranks(shifted))["Hit@5"]) / len(asked) < 0.2


def test_a_subsection_hits_its_section_but_not_its_page_title(example_mkdocs: BuiltSite) -> None:
    sections = example_mkdocs.sections
    example = sections["guide/deep-nesting/#example_4"]
    chunk = holding_chunk(example_mkdocs, example)
    assert mdchunk_hit(example.url, chunk, sections["guide/deep-nesting/#http-sink"],
                       example_mkdocs)
    assert not mdchunk_hit(example.url, chunk, sections["guide/deep-nesting/#pipeline-internals"],
                           example_mkdocs)
    assert not mdchunk_hit(example.url, chunk, sections["guide/deep-nesting/#journald-source"],
                           example_mkdocs)
    # A chunk that holds a deeper section's heading (below split_level) hits it.
    batch = sections["guide/deep-nesting/#batch"]
    holder = holding_chunk(example_mkdocs, batch)
    assert mdchunk_hit("guide/deep-nesting/#stage", holder, batch, example_mkdocs)


def test_a_chunk_hits_by_its_span_and_a_page_title_by_its_own_text(
        example_mkdocs: BuiltSite) -> None:
    sections = example_mkdocs.sections
    title = sections["guide/configuration/#configuration"]
    keys = sections["guide/configuration/#top-level-keys"]
    inside_keys = example_mkdocs.chunk_spans[holding_chunk(example_mkdocs, keys)]
    assert span_hit(inside_keys, keys)
    assert not span_hit(inside_keys, title)  # the title section's own text is its intro
    assert not span_hit(dataclasses.replace(inside_keys, page="guide/math/"), keys)


# --- A whole run ---------------------------------------------------------------------------------


def test_a_quick_run_prints_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("bm25s", reason="BM25 ranks with bm25s (the bench extra)")
    main(["--quick", "--site", *EXAMPLE_SITES, "--split", "dev"])
    out = capsys.readouterr().out
    rows = {line.split(" | ")[0].lstrip("| "): line for line in out.splitlines()
            if line.startswith("| ") and " | " in line}
    for retriever in ("mdchunk lexical", "mdchunk dense", "mdchunk hybrid",
                      "BM25 whole pages (page hit)", "BM25 mdchunk chunks"):
        assert retriever in rows, retriever
    assert "**macro** (2 sites)" in out
    for mode in ("dense", "hybrid"):  # measured (the macro row has intervals), or saying why not
        lines = [line for line in out.splitlines() if line.startswith(f"| mdchunk {mode} |")]
        assert any("unavailable: " in line or "[" in line for line in lines), lines


def test_a_run_with_two_models_gives_each_its_own_rows(
        example_mkdocs: BuiltSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("bm25s", reason="BM25 ranks with bm25s (the bench extra)")
    pytest.importorskip("wordllama", reason="the default model (mdchunk[search])")
    pytest.importorskip("model2vec", reason="a model2vec model (mdchunk[embed])")
    from tests.test_vectors import make_model2vec  # (random vectors of the site's words)

    folder = make_model2vec(tmp_path / "models" / "random",
                            texts=list(example_mkdocs.pages.values()))
    main(["--quick", "--site", "example-mkdocs", "--split", "dev",
          "--model", "wordllama", "--model", f"model2vec:{folder}"])
    out = capsys.readouterr().out
    assert f"embedding models (mdchunk embed --model): wordllama, model2vec:{folder}" in out
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ", 2)[2] for line in out.splitlines()
            if line.startswith("| mdchunk ") and " | example-mkdocs (" in line}
    assert "mdchunk lexical" in rows  # (once: it uses no vectors)
    assert not any(row.startswith("mdchunk lexical (") for row in rows)
    for mode in ("dense", "hybrid", "hybrid, no word expansion"):
        of_each = [rows[f"mdchunk {mode} ({model})"]
                   for model in ("wordllama", "model2vec:models/random")]
        assert all("[" in cells and "unavailable" not in cells for cells in of_each), of_each
    # Each model's rows rank with its own vectors: random word vectors rank apart from
    # WordLlama's.
    assert rows["mdchunk dense (wordllama)"] != rows["mdchunk dense (model2vec:models/random)"]
