"""mdchunk's version, and the identity of the code that runs."""

import functools
import hashlib
from pathlib import Path

__version__ = "0.1.0"


@functools.cache
def code_identity(package: Path = Path(__file__).parent) -> str:
    """The version and a digest of the Python files of `package` (mdchunk's own): what the
    page cache's entries are made by. Code installed from a development checkout, or edited
    since, keeps the version but not the digest, so its builds do not read the records that
    other code wrote."""
    digest = hashlib.sha256()
    try:
        for path in sorted(package.rglob("*.py")):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    except OSError:  # (files that cannot be read: the version alone)
        return __version__
    return f"{__version__}+{digest.hexdigest()[:16]}"
