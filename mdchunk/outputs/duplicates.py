"""Duplicate chunks across a site: the same text on several pages (includes, snippets,
boilerplate), exactly or nearly.

Marking needs the whole site, so it happens when a build finishes: each chunk gets a print where
its page is chunked (`chunk_print`: cheap, kept with the page's counts), and `find_duplicates`
reads the prints of every chunk in the index's order. The first occurrence of a text is the
first in that order, so two builds of the same site mark the same chunks.

- **Exact**: the same normalised text (`normalized`: Unicode NFKC, case folded, white space
  collapsed). A chunk is marked with the id of the first chunk with that text.
- **Near**: a Jaccard similarity of at least `NEAR_THRESHOLD` (0.9) between the chunks' sets of
  `SHINGLE_WORDS`-word shingles (runs of 5 consecutive words of the normalised text). Each set
  is summarised by a bottom-k MinHash sketch: the `SKETCH_SIZE` (128) smallest 32-bit hashes of
  its shingles. Two sketches estimate the similarity from the k smallest hashes of their union
  (the share of them that both hold); for chunks of at most 128 shingles (about 130 words) the
  sketch is the whole set and the similarity exact, for larger ones the estimate's standard
  error is about 0.03 at 0.9. A chunk is compared with the chunks kept so far (those not marked
  themselves) and marked with the most similar, first in order on ties: so every marked chunk
  has a kept chunk at least that similar, and leaving the marked chunks out loses no text that
  is not, nearly, kept.

Only kept chunks that could reach the threshold are compared (prefix filtering): two sketches
of similarity `t` share at least `t` times the larger sketch's length, so the smallest hash they
share lies among the first `len - ceil(t * len) + 1` hashes of each. Indexing those few hashes
finds every candidate, and the marks are those of comparing every pair.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import heapq
import math
import re
import struct
import sys
import unicodedata
import zlib
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, AnyStr, Literal

SHINGLE_WORDS = 5
"""Words per shingle."""
NEAR_THRESHOLD = 0.9
"""Least Jaccard similarity of two chunks' shingle sets for a near-duplicate."""
SKETCH_SIZE = 128
"""Hashes kept per chunk (bottom-k MinHash)."""
_WORD = re.compile(r"\w+")
#: A table for `bytes.translate` that turns every byte but an ASCII word character (what `\w`
#: matches in ASCII text: letters, digits, `_`) into a space: the words of ASCII text are then
#: what `split()` gives, as `re.findall(rb"\w+")` would find them, but faster.
_ASCII_WORDS_ONLY = bytes(
    byte if chr(byte).isascii() and (chr(byte).isalnum() or byte == ord("_")) else ord(" ")
    for byte in range(256))


def normalized(text: str) -> str:
    """`text` as exact duplicates compare it: NFKC, case folded, runs of white space as one
    space, no white space at the ends."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@dataclasses.dataclass(frozen=True, slots=True)
class ChunkPrint:
    """What duplicate detection keeps of one chunk."""

    id: str
    """The chunk's id."""
    digest: str
    """SHA-256 of its normalised text (hex, first 32 characters)."""
    sketch: tuple[int, ...]
    """The smallest `SKETCH_SIZE` 32-bit hashes of its shingles, in ascending order."""

    def as_json(self) -> list[str]:
        """A compact JSON form (the sketch as base64 of 4-byte big-endian hashes)."""
        packed = struct.pack(f">{len(self.sketch)}I", *self.sketch)
        return [self.id, self.digest, base64.b64encode(packed).decode("ascii")]

    @classmethod
    def from_json(cls, value: Sequence[str]) -> ChunkPrint:
        """The print of `as_json`."""
        packed = base64.b64decode(value[2])
        return cls(value[0], value[1], struct.unpack(f">{len(packed) // 4}I", packed))


def chunk_print(chunk_id: str, text: str) -> ChunkPrint:
    """The print of the chunk `chunk_id` whose text (`originalText`) is `text`."""
    plain = normalized(text)
    data = plain.encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(data).hexdigest()[:32]
    # The shingles are hashed as UTF-8: the words of ASCII text are split out of its bytes
    # (`_ASCII_WORDS_ONLY`), others each encoded once.
    words = data.translate(_ASCII_WORDS_ONLY).split() if plain.isascii() else [
        word.encode("utf-8", "surrogatepass") for word in _WORD.findall(plain)]
    return ChunkPrint(chunk_id, digest, _bottom(map(zlib.crc32, _runs(words, b" "))))


def shingles(plain: str) -> set[str]:
    """The runs of `SHINGLE_WORDS` consecutive words of a normalised text (a shorter text: its
    words as one shingle; a text without words: none)."""
    return set(_runs(_WORD.findall(plain), " "))


def _runs(words: Sequence[AnyStr], space: AnyStr) -> Iterator[AnyStr]:
    """The shingles of `words` (text or UTF-8), repeats included."""
    if len(words) <= SHINGLE_WORDS:
        return iter([space.join(words)] if words else [])
    return map(space.join, zip(*(words[at:] for at in range(SHINGLE_WORDS)), strict=False))


def sketch(parts: Iterable[str]) -> tuple[int, ...]:
    """The smallest `SKETCH_SIZE` hashes (CRC-32, the same in every process) of `parts`."""
    return _bottom(zlib.crc32(part.encode("utf-8", "surrogatepass")) for part in parts)


def _bottom(hashes: Iterable[int]) -> tuple[int, ...]:
    """The smallest `SKETCH_SIZE` of `hashes`, in ascending order, without repeats."""
    return tuple(sorted(set(hashes))[:SKETCH_SIZE])


def similarity(a: Sequence[int], b: Sequence[int]) -> float:
    """The Jaccard similarity of two shingle sets, from their sketches: the share of the
    `SKETCH_SIZE` smallest hashes of their union that both hold (exact when both sets are
    smaller than that)."""
    union = heapq.nsmallest(SKETCH_SIZE, set(a) | set(b))
    if not union:
        return 0.0
    both = set(a) & set(b)
    return sum(value in both for value in union) / len(union)


@dataclasses.dataclass(frozen=True, slots=True)
class Duplicate:
    """How a chunk duplicates an earlier one."""

    of: str
    """The id of the chunk it duplicates (kept, first in the index's order)."""
    kind: Literal["exact", "near"]
    similarity: float
    """1.0 for an exact duplicate; the estimated Jaccard similarity of a near one."""

    def as_record(self) -> dict[str, Any]:
        """The native record's `duplicateOf`."""
        return {"id": self.of, "kind": self.kind, "similarity": self.similarity}


def find_duplicates(prints: Iterable[ChunkPrint], *, threshold: float = NEAR_THRESHOLD
                    ) -> dict[str, Duplicate]:
    """The duplicate chunks among `prints` (in the index's order), by id."""
    finder = DuplicateFinder(threshold)
    for chunk in prints:
        finder.add(chunk)
    return finder.marks


class DuplicateFinder:
    """`find_duplicates` one chunk at a time: each chunk added is marked against those added
    before it, so the marks of chunks added in the index's order are the index's.

    It keeps a few bytes a hash: the sketches of the kept chunks one after another in an array
    of 32-bit values (no Python object for each hash), and each chunk's digest; a sketch's set
    of hashes is made only while the chunk is compared."""

    def __init__(self, threshold: float = NEAR_THRESHOLD) -> None:
        self.marks: dict[str, Duplicate] = {}
        """The duplicate chunks added so far, by id."""
        self._first_with: dict[str, str] = {}  # a digest: the first chunk with it
        self._kept = _Kept(threshold)

    def add(self, chunk: ChunkPrint) -> None:
        """Mark `chunk` if it duplicates a chunk added before it, else keep it to compare the
        next ones with."""
        self._add(chunk.id, chunk.digest, array("I", chunk.sketch))

    def add_json(self, value: Sequence[str]) -> None:
        """`add` of a print in its JSON form (`ChunkPrint.as_json`), its sketch read straight
        into an array."""
        self._add(value[0], value[1], _unpacked(value[2]))

    def _add(self, chunk_id: str, digest: str, hashes: array[int]) -> None:
        earlier = self._first_with.setdefault(digest, chunk_id)
        if earlier != chunk_id:
            self.marks[chunk_id] = self.marks.get(earlier) or Duplicate(earlier, "exact", 1.0)
            return
        own = set(hashes)
        near = self._kept.most_similar(hashes, own)
        if near is not None:
            self.marks[chunk_id] = near
            return
        self._kept.add(chunk_id, hashes, own)


def _unpacked(text: str) -> array[int]:
    """The hashes of a sketch in its JSON form (base64 of 4-byte big-endian values)."""
    hashes = array("I", base64.b64decode(text))
    if sys.byteorder == "little":
        hashes.byteswap()
    return hashes


def find_duplicates_in(prints: Iterable[Sequence[str]], *, threshold: float = NEAR_THRESHOLD
                       ) -> dict[str, Duplicate]:
    """`find_duplicates` of prints in their JSON form (`ChunkPrint.as_json`)."""
    finder = DuplicateFinder(threshold)
    for value in prints:
        finder.add_json(value)
    return finder.marks


class _Kept:
    """The chunks kept so far, indexed by the hashes of their sketches' prefixes."""

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold
        self.ids: list[str] = []
        self.hashes = array("I")
        """The kept chunks' sketches, one after another (each without repeats)."""
        self.starts = array("Q", [0])
        """Where each kept chunk's sketch starts in `hashes`, and where the last one ends."""
        self.holder: dict[int, int] = {}  # a hash: the first kept chunk whose prefix has it
        self.more: dict[int, list[int]] = {}  # a hash: the other kept chunks whose prefix has it

    def prefix(self, sketch: Sequence[int]) -> Sequence[int]:
        """The first hashes of `sketch`, among which any sketch at least `threshold` similar
        shares one (rounded down, the share is never short of the bound)."""
        return sketch[:len(sketch) - math.floor(self.threshold * len(sketch)) + 1]

    def add(self, chunk_id: str, sketch: array[int], own: set[int]) -> None:
        """Keep the chunk `chunk_id`, whose sketch `sketch` holds `own`."""
        position = len(self.ids)
        self.ids.append(chunk_id)
        for value in self.prefix(sketch):
            if self.holder.setdefault(value, position) != position:
                self.more.setdefault(value, []).append(position)
        self.hashes.extend(sketch if len(own) == len(sketch) else dict.fromkeys(sketch))
        self.starts.append(len(self.hashes))

    def candidates(self, sketch: Sequence[int]) -> list[int]:
        """The kept chunks whose prefix shares a hash with the prefix of `sketch`, in order."""
        found: set[int] = set()
        for value in self.prefix(sketch):
            position = self.holder.get(value)
            if position is not None:
                found.add(position)
                found.update(self.more.get(value, ()))
        return sorted(found)

    def most_similar(self, sketch: array[int], own: set[int]) -> Duplicate | None:
        """The kept chunk most similar to `sketch` at the threshold or above (the first on
        ties), as a near duplicate. A candidate must share at least the threshold's share of
        the larger sketch (the similarity counts shared hashes among as many as that holds)
        before the similarity is worked out (and it cannot unless the smaller sketch holds
        as many)."""
        best: tuple[float, int] | None = None
        for position in self.candidates(sketch):
            start, end = self.starts[position], self.starts[position + 1]
            least = math.floor(self.threshold * max(len(own), end - start))
            if min(len(own), end - start) < least:
                continue
            other = self.hashes[start:end]
            shared = own.intersection(other)
            if len(shared) < least:
                continue
            score = _share_of_union(own, other, shared)
            if score >= self.threshold and (best is None or score > best[0]):
                best = (score, position)
        if best is None:
            return None
        return Duplicate(self.ids[best[1]], "near", round(best[0], 3))


def _share_of_union(own: set[int], other: Sequence[int], shared: set[int]) -> float:
    """`similarity` of the sketch holding `own` and `other` (without repeats), which share
    `shared`: the shared hashes among the `SKETCH_SIZE` smallest of the union, counted without
    making the union but when it is larger than that."""
    union = len(own) + len(other) - len(shared)
    if union <= SKETCH_SIZE:
        return len(shared) / union if union else 0.0
    largest = sorted(own.union(other))[SKETCH_SIZE - 1]
    return sum(value <= largest for value in shared) / SKETCH_SIZE
