"""Embedding models by name: texts in, float32 unit vectors out, in batches.

A model is named as `KIND:NAME` (or `wordllama` alone, the default):

- `wordllama`: WordLlama's `l2_supercat` static embeddings, 256 dimensions. Its weights and
  tokenizer ship in the `wordllama` wheel (about 20 MB, no torch), so it loads with no download:
  a site embeds on any machine that can `pip install 'mdchunk[search]'`.
- `model2vec:NAME_OR_PATH`: a model2vec static model, from a local folder or by its hub name.
- `sentence-transformers:NAME` and `fastembed:NAME`: any model of those libraries.

A model named by its hub id is downloaded on first use, so it needs network access once (or a
copy in the library's own cache); a local folder never does. Every failure (a library that is
not installed, a model that cannot be loaded) is an `EmbedderError` in one line naming the model
and the fix.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdchunk.errors import MdChunkError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

#: The model a build or `mdchunk embed` uses when none is named.
DEFAULT_MODEL = "wordllama"
#: The kinds of model a name may start with (`KIND:NAME`), and the extra that installs each.
KINDS: dict[str, str] = {
    "wordllama": "search",
    "model2vec": "embed",
    "sentence-transformers": "embed",
    "fastembed": "embed",
}
#: How many texts go to the model at once, at most.
BATCH_SIZE = 32
#: The most characters of a batch, counted as its longest text's times its texts' number (a
#: model pads every text of a batch to the longest).
BATCH_CHARACTERS = 32 * 2_000
_PROBE = "mdchunk embeds the text of each chunk"
"""A text embedded when a model loads: its vector tells two models of one name apart."""


@dataclasses.dataclass(frozen=True, slots=True)
class TokenModel:
    """What a static model averages: the token ids of texts and each token's vector."""

    ids: Callable[[list[str]], list[list[int]]]
    """The token ids of each text, in order (no padding, no special tokens)."""
    vectors: Matrix
    """One row per token id."""


class EmbedderError(MdChunkError):
    """An embedding model cannot be had: its library is missing, or it cannot be loaded."""


@dataclasses.dataclass(frozen=True, slots=True)
class Embedder:
    """A loaded model: `embed` turns texts into float32 unit vectors of `dimension`."""

    name: str
    """The model's name, as a user writes it (`wordllama`, `model2vec:minishlab/potion-base-8M`),
    a local folder by its absolute path (`model2vec:/home/me/my-model`)."""
    dimension: int
    key: str
    """The name and a digest of the model's vector for a fixed text: what the embedding cache
    keys vectors by, so that a model changed under the same name (a new release of its
    package, a local folder trained again) embeds again."""
    encode: Callable[[list[str]], Matrix]
    """The library's own call: one row per text, not normalized."""
    tokens: TokenModel | None = None
    """A static model's tokens and their vectors (None: a model that is no sum of token
    vectors): a question is embedded with its tokens weighted by the index's idf
    (`mdchunk.search.token_weights`)."""

    def embed(self, texts: Sequence[str], batch_size: int = BATCH_SIZE) -> Matrix:
        """The unit vectors of `texts` (float32, one row each, in their order; a text the model
        has no word of gets zeros), `batch_size` texts at a time.

        The texts go to the model shortest first, so that a batch's texts are of about one
        length: a model that pads a batch to its longest text pads little. A batch of long
        texts is smaller (`BATCH_CHARACTERS`), so that its padded tokens fit in little memory.
        """
        import numpy as np

        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for batch in text_batches(texts, batch_size):
            vectors[batch] = unit_rows(self.encode([texts[index] for index in batch]))
        return vectors


def text_batches(texts: Sequence[str], size: int) -> list[list[int]]:
    """The indexes of `texts`, shortest first, in batches of at most `size` texts whose
    count times their longest length stays within `BATCH_CHARACTERS` (one text at least)."""
    batches: list[list[int]] = []
    batch: list[int] = []
    for index in sorted(range(len(texts)), key=lambda index: len(texts[index])):
        if batch and (len(batch) >= size
                      or (len(batch) + 1) * len(texts[index]) > BATCH_CHARACTERS):
            batches.append(batch)
            batch = []
        batch.append(index)
    return [*batches, batch] if batch else batches


def unit_rows(matrix: Any) -> Matrix:
    """`matrix` as float32 rows of length 1 (rows of zeros stay zeros). The lengths are
    computed in float64, where no float32 row's underflows to 0 or overflows."""
    import numpy as np

    rows = np.asarray(matrix, dtype=np.float64)
    if rows.ndim != 2:
        rows = rows.reshape(len(rows), -1)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    unit: Matrix = np.divide(rows, norms, out=np.zeros_like(rows),
                             where=norms > 0).astype(np.float32)
    return unit


def check_model_name(name: object) -> str:
    """`name` when it names a model of a known kind (nothing is loaded).

    Raises:
        EmbedderError: naming the kinds a name may have.
    """
    if not isinstance(name, str) or not name.strip():
        raise EmbedderError(f"an embedding model must be named by a str, got {name!r}")
    kind, _, rest = name.partition(":")
    if kind not in KINDS or (kind != "wordllama" and not rest.strip()) or (
            kind == "wordllama" and rest):
        raise EmbedderError(
            f"unknown embedding model {name!r}: give wordllama, model2vec:NAME_OR_PATH, "
            "sentence-transformers:NAME or fastembed:NAME")
    return name


@functools.cache
def cached_embedder(name: str) -> Embedder | EmbedderError:
    """`load_embedder(name)` once per process: the model, or why it cannot be had (a search
    asks for the same model at every query)."""
    try:
        return load_embedder(name)
    except EmbedderError as error:
        return error


def load_embedder(name: str) -> Embedder:
    """The model `name` (see the module's docstring), loaded.

    Raises:
        EmbedderError: an unknown name, a library that is not installed, a model that cannot
            be loaded; the message names the model and what to install or give instead.
    """
    kind, _, rest = check_model_name(name).partition(":")
    rest = rest.strip()
    local = _local_folder(rest, kind) if kind in ("model2vec", "sentence-transformers") else None
    if local is not None:  # (named by its absolute path: a search from elsewhere finds it)
        rest = str(local.resolve())
        name = f"{kind}:{rest}"
    loaders: dict[str, Callable[[str], Callable[[list[str]], Matrix]]] = {
        "model2vec": _model2vec,
        "sentence-transformers": _sentence_transformers, "fastembed": _fastembed,
    }
    tokens = None
    if kind == "wordllama":
        encode, tokens = _wordllama()
    else:
        encode = loaders[kind](rest)
    try:
        probe = unit_rows(encode([_PROBE]))
    except Exception as error:
        raise EmbedderError(f"embedding model {name!r} cannot embed a text: {error}") from error
    digest = hashlib.sha256(probe.round(4).tobytes()).hexdigest()[:16]
    return Embedder(name=name, dimension=int(probe.shape[1]), key=f"{name}@{digest}",
                    encode=encode, tokens=tokens)


def _library(module: str, kind: str) -> Any:
    """Import the library of a kind of model, or say which extra installs it.

    The root logger is left as it was: some of these libraries call `logging.basicConfig` when
    imported (wordllama does), which would print every library's log lines in the user's build
    or server from then on."""
    import importlib
    import logging

    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise EmbedderError(
            f"embedding model kind {kind!r} needs {module}, which is not installed ({error}): "
            f"pip install 'mdchunk[{KINDS[kind]}]'") from error
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)


def _cannot_load(name: str, error: Exception, *, hub: bool) -> EmbedderError:
    where = (" (a model named by its hub id is downloaded on first use, which needs network "
             "access; give a local folder, or the default wordllama, offline)" if hub else "")
    first = str(error).strip().splitlines()
    return EmbedderError(f"embedding model {name!r} cannot be loaded: "
                         f"{first[0] if first else type(error).__name__}{where}")


def _wordllama() -> tuple[Callable[[list[str]], Matrix], TokenModel]:
    """WordLlama `l2_supercat`, 256 dimensions, from the weights in its own package (it looks
    for its tokenizer beside them only when given its package folder as the cache): its call,
    and its tokens (it embeds a text as the mean of its tokens' vectors)."""
    wordllama = _library("wordllama", "wordllama")
    try:
        model = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent,
                                         disable_download=True)
    except Exception as error:
        raise _cannot_load("wordllama", error, hub=False) from error

    def ids(texts: list[str]) -> list[list[int]]:
        return [[token for token, kept in zip(found.ids, found.attention_mask, strict=True)
                 if kept] for found in model.tokenize(texts)]

    return (lambda texts: model.embed(texts, norm=False, batch_size=len(texts) or 1),
            TokenModel(ids=ids, vectors=model.embedding))


def _model2vec(name: str) -> Callable[[list[str]], Matrix]:
    """A model2vec static model from a folder, or by its hub name."""
    model2vec = _library("model2vec", "model2vec")
    try:
        model = model2vec.StaticModel.from_pretrained(name, force_download=False)
    except Exception as error:
        raise _cannot_load(f"model2vec:{name}", error, hub=not Path(name).is_dir()) from error
    return lambda texts: model.encode(texts, show_progress_bar=False, use_multiprocessing=False,
                                      batch_size=max(len(texts), 1))


def _sentence_transformers(name: str) -> Callable[[list[str]], Matrix]:
    library = _library("sentence_transformers", "sentence-transformers")
    try:
        model = library.SentenceTransformer(name)
    except Exception as error:
        raise _cannot_load(f"sentence-transformers:{name}", error,
                           hub=not Path(name).is_dir()) from error
    return lambda texts: model.encode(texts, batch_size=32, show_progress_bar=False,
                                      convert_to_numpy=True)


def _fastembed(name: str) -> Callable[[list[str]], Matrix]:
    library = _library("fastembed", "fastembed")
    import numpy as np  # (fastembed's own dependency)

    try:
        model = library.TextEmbedding(model_name=name)
    except Exception as error:
        raise _cannot_load(f"fastembed:{name}", error, hub=True) from error
    return lambda texts: np.vstack(list(model.embed(texts)))


def _local_folder(name: str, kind: str) -> Path | None:
    """The folder `name` names, when it is a path (None: a hub name).

    Raises:
        EmbedderError: a name written as a path (`./model`, `/models/x`, `~/x`) that is no
            folder.
    """
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    if name.startswith((".", "/", "~", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise EmbedderError(f"embedding model '{kind}:{name}': no such folder {path}")
    return None
