"""The fast constructors of the frozen dataclasses make exactly what the classes make."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mdchunk import Chunker, ChunkOptions, PageInput
from mdchunk.chunk import Chunk, Features, new_chunk, new_features
from mdchunk.frozen import frozen_maker
from mdchunk.model import Block, new_block

PAGE = PageInput(
    html=("<h1 id='t'>Title</h1><p>Intro.</p><h2 id='a'>A</h2><ul><li>one</li><li>two<ul>"
          "<li>three</li></ul></li></ul><pre><code class='language-py'>x = 1</code></pre>"
          "<table><tr><th>h</th></tr><tr><td>c</td></tr></table>"),
    source_path="p.md", url="p/", title="Title", meta={"tags": ["a"]},
)


def values_of(instance: Any) -> dict[str, Any]:
    return {field.name: getattr(instance, field.name) for field in dataclasses.fields(instance)}


def check_same(made: Any, expected: Any) -> None:
    assert type(made) is type(expected)
    assert made == expected
    try:
        expected_hash = hash(expected)
    except TypeError:  # (a chunk holds dicts: the front matter, the options)
        with pytest.raises(TypeError):
            hash(made)
    else:
        assert hash(made) == expected_hash
    assert repr(made) == repr(expected)
    assert pickle.loads(pickle.dumps(made)) == expected
    name = dataclasses.fields(made)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, name, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(made, name)
    assert dataclasses.replace(made) == expected


def test_chunks_and_features_made_fast_are_those_the_classes_make() -> None:
    chunks = Chunker(ChunkOptions(max_tokens=32, min_tokens=0)).chunk_page(PAGE).chunks
    assert len(chunks) > 1
    for chunk in chunks:
        check_same(new_chunk(**values_of(chunk)), Chunk(**values_of(chunk)))
        check_same(new_features(**values_of(chunk.features)), Features(**values_of(chunk.features)))
        check_same(chunk, Chunk(**values_of(chunk)))  # (the chunker makes them so)
    check_same(new_features(), Features())
    check_same(new_features(headings=2, languages=("py",)), Features(headings=2, languages=("py",)))


block_arguments = st.tuples(
    st.sampled_from(["heading", "paragraph", "list", "item", "code", "table"]),
    st.integers(0, 10**6), st.integers(0, 10**6),
    st.just((Block("paragraph", 0, 1),)) | st.just(()),
    st.integers(0, 6), st.text(max_size=8), st.text(max_size=8), st.text(max_size=8),
    st.booleans(),
)


@given(block_arguments)
def test_blocks_made_fast_are_those_the_class_makes(arguments: tuple[Any, ...]) -> None:
    check_same(new_block(*arguments), Block(*arguments))


def test_a_maker_refuses_what_the_class_refuses() -> None:
    with pytest.raises(TypeError):
        new_features(headings=1, unknown=2)
    with pytest.raises(TypeError):
        new_block("paragraph", 1)  # type: ignore[call-arg]


@dataclasses.dataclass(frozen=True, slots=True)
class WithFactory:
    items: list[int] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True, slots=True)
class WithPostInit:
    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("negative")


@dataclasses.dataclass(frozen=True)
class WithoutSlots:
    value: int


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class KeywordOnly:
    value: int = 0
    name: str


@pytest.mark.parametrize("cls", [WithFactory, WithPostInit, WithoutSlots, KeywordOnly])
def test_classes_a_maker_cannot_serve_are_made_by_themselves(cls: type) -> None:
    assert frozen_maker(cls) is cls
