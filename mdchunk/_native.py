"""Whether the chunking path runs compiled, and the Python source wherever it must not.

`setup.py` compiles `MODULES` with mypyc and records the digest of each source it compiled
(`mdchunk._compiled`). Python imports a compiled module in preference to its source, so an
editable install whose sources were edited since would run the old code. When any source
differs from its digest, when an extension module lies here that the last build did not make (a
module an earlier build compiled), or when `MDCHUNK_PURE_PYTHON=1`, the sources of all of them
are imported instead: compiled, they call each other directly, so they go together.

What a compiled module must not do:

- recurse over page data: compiled recursion overflows the C stack and kills the process where
  Python raises RecursionError (the front matter is made plain in `pipeline`, the orjson check
  walks with its own stack, the HTML walk is bounded);
- define classes that are pickled, or frozen dataclasses built in bulk: compiled, those unpickle
  only with a `__reduce__` and build slower (`model`, `chunk` stay interpreted, and so does
  `frozen`, whose fast constructors rely on the interpreter's stores to slots);
- hold a function a test replaces: compiled callers do not see the replacement (`tokens`);
- annotate what is not so: compiled code checks annotations at run time (the build type-checks
  with lxml's stubs).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: The compiled modules (setup.py's COMPILED).
MODULES = ("html", "packing", "tree", "describe", "records", "counting", "timing")
_FOLDER = Path(__file__).parent


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the `.py` file of the compiled modules, ahead of their extension modules."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        source = _FOLDER / f"{fullname.rpartition('.')[2]}.py"
        return importlib.util.spec_from_file_location(fullname, source)


def _built() -> list[str]:
    """The modules of this package that have an extension module beside their source: those
    of `MODULES`, and any left by an earlier build that compiled more."""
    built = []
    for path in _FOLDER.iterdir():
        name = path.name.partition(".")[0]
        if (path.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
                and (_FOLDER / f"{name}.py").is_file()):
            built.append(name)
    return sorted(built)


def _current(built: list[str]) -> bool:
    """Whether the compiled modules are those of `MODULES`, each built from the source beside
    it."""
    try:
        from mdchunk._compiled import DIGESTS
    except ImportError:  # (a checkout never built)
        return False
    if sorted(DIGESTS) != built or built != sorted(MODULES):
        return False
    for name in built:
        source = (_FOLDER / f"{name}.py").read_bytes()
        if hashlib.sha256(source).hexdigest() != DIGESTS[name]:
            return False
    return True


def _choose() -> bool:
    """Use the compiled modules when they are current and wanted; else route their imports to
    the sources. Returns whether the compiled modules are in use."""
    built = _built()
    if not built:
        return False
    if os.environ.get("MDCHUNK_PURE_PYTHON") != "1" and _current(built):
        return True
    names = {f"mdchunk.{name}" for name in {*MODULES, *built}}
    if not names.intersection(sys.modules):
        sys.meta_path.insert(0, _SourceFinder(names))
    return False


COMPILED = _choose()
"""True when the chunking path runs compiled (mypyc)."""
BUILD = "compiled with mypyc" if COMPILED else "pure Python"
"""How the chunking path runs here, in words (`mdchunk --version`, the debug log)."""
