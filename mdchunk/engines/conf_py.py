"""The names a Sphinx `conf.py` binds, read without running it: Sphinx keeps no public record
of the names a conf.py sets that no extension registered, and the extension warns of the
`mdchunk_*` ones that are no option."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path


def conf_py_names(conf_py: Path) -> list[str]:
    """The names a conf.py binds outside its functions and classes, in order, read without
    running it (running it again would repeat its side effects). None where there is no
    conf.py (`sphinx-build -C` without one) or it cannot be parsed; names made at run time
    (`globals()[name] = ...`, `from module import *`) are not seen."""
    try:
        tree = ast.parse(conf_py.read_bytes(), filename=str(conf_py))
    except (OSError, SyntaxError, ValueError, RecursionError):
        return []
    return list(dict.fromkeys(_bound_names(tree)))


#: Nodes whose names belong to a scope of their own, not to conf.py's namespace.
_OWN_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp,
               ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _bound_names(node: ast.AST) -> Iterator[str]:
    """The names assigned, imported or used as a loop or `with` target in the module's own
    scope, at any depth of `if`, `try`, `for` and `with` blocks."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _OWN_SCOPES):
            continue
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
            yield child.id
        elif isinstance(child, ast.alias):
            yield (child.asname or child.name).split(".", 1)[0]
        yield from _bound_names(child)
