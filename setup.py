"""Build mdchunk with its chunking path compiled by mypyc, where that can be done.

The modules of `COMPILED` are plain typed Python; mypyc turns them into C extensions, and
chunking then takes about 20% fewer instructions (benchmarks/RESULTS.md, "Chunking alone").
Everything else is in pyproject.toml.

- `MDCHUNK_COMPILE=0` builds pure Python.
- Where mypyc or the C compiler fails (no compiler, an untested mypy), the build goes on in
  pure Python with a warning: the compiled modules give the same chunks, only faster.
- The sources' digests go into `mdchunk/_compiled.py`: a compiled module whose source was
  edited since (an editable install) is not used (`mdchunk._native`).
- What a compiled module must not do (recurse over page data, hold classes that are pickled)
  is in `mdchunk._native`.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent
#: The modules a page goes through while it is chunked (the rest is I/O and engine glue).
COMPILED = ("mdchunk/html.py", "mdchunk/packing.py", "mdchunk/tree.py", "mdchunk/describe.py",
            "mdchunk/records.py", "mdchunk/counting.py", "mdchunk/timing.py")
DIGESTS = HERE / "mdchunk" / "_compiled.py"


def _warn(message: str) -> None:
    print(f"mdchunk: {message}; building pure Python (the same chunks, slower)", file=sys.stderr)


def _write_digests(compiled: bool, digests_file: Path = DIGESTS) -> None:
    digests = {Path(path).stem: hashlib.sha256((HERE / path).read_bytes()).hexdigest()
               for path in COMPILED} if compiled else {}
    digests_file.write_text(
        '"""Written by setup.py: the sources the compiled modules were built from."""\n\n'
        f"DIGESTS: dict[str, str] = {digests!r}\n", encoding="utf-8")


def _extensions() -> list:
    """mypyc's extension modules of `COMPILED` (none where it cannot make them), the digests
    written to match."""
    extensions = _mypyc_extensions()
    _write_digests(bool(extensions))
    return extensions


def _mypyc_extensions() -> list:
    if os.environ.get("MDCHUNK_COMPILE", "1") == "0":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as error:
        _warn(f"mypyc cannot be imported ({error})")
        return []
    try:  # (paths from the project folder, where pip runs this)
        return mypycify(["--ignore-missing-imports", "--follow-imports=silent", *COMPILED],
                        opt_level="3", group_name="mdchunk")
    except (Exception, SystemExit) as error:  # noqa: BLE001 - type errors exit
        _warn(f"mypyc failed ({error})")
        return []


class _BuildExtOrPure(build_ext):
    """Build the extensions; should the compiler fail, remove what was built and go on."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 - compiler errors come in many classes
            for output in self.get_outputs():
                Path(output).unlink(missing_ok=True)
            _write_digests(False)
            built = Path(self.build_lib) / DIGESTS.relative_to(HERE)  # (copied before this ran)
            if built.is_file():
                _write_digests(False, built)
            _warn(f"the C extensions cannot be built ({error})")


setup(ext_modules=_extensions(), cmdclass={"build_ext": _BuildExtOrPure})
