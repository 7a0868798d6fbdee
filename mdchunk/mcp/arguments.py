"""The tools' arguments: declared to the client with their JSON types, checked here.

The MCP SDK validates a tool's arguments with pydantic, whose message for a wrong type is a
multi-line dump (`1 validation error for search_docsArguments`, the input, a link). So each
argument is declared with its JSON schema (`integer`, `string`, an array of strings) but taken
as it comes, and checked by `integer`, `text` and `texts` as the tool runs: a wrong type is a
`DocsError` of one line that names the argument and says what to give, like every other bad
argument.
"""

from typing import Any

from mdchunk.mcp.docs import DocsError

#: Characters of a wrong value shown back in a message.
_SHOWN = 60


def declared(schema: dict[str, Any], description: str) -> Any:
    """The metadata of an argument annotated `Annotated[Any, declared(...)]`: the client sees
    it as `schema` with `description`; the tool takes it as it comes, to check it itself."""
    from pydantic import Field

    return Field(description=description, json_schema_extra=schema)


def integer(value: object, name: str) -> int:
    """`value` as an integer: an integer, or text of one (`"5"`), as JSON clients send it."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    raise DocsError(f"{name} must be an integer, e.g. {name}=5, not {_described(value)}")


def text(value: object, name: str, example: str, *, several: str = "") -> str:
    """`value`, which must be text; `several` names the tool that takes a list instead."""
    if isinstance(value, str):
        return value
    hint = f" ({several} takes several)" if several and isinstance(value, list) else ""
    raise DocsError(f"{name} must be a string, e.g. {example!r}, not {_described(value)}{hint}")


def texts(value: object, name: str, example: str) -> list[str]:
    """`value`, which must be a list of texts."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    if isinstance(value, list):
        wrong = next(item for item in value if not isinstance(item, str))
        raise DocsError(f"{name} must be a list of strings, e.g. [{example!r}]; one item is "
                        f"{_described(wrong)}")
    raise DocsError(f"{name} must be a list of strings, e.g. [{example!r}], not "
                    f"{_described(value)}")


def _described(value: object) -> str:
    """What a wrong value is, on one line and short: `a list ([...])`, `text ('many')`."""
    kind = {bool: "a boolean", int: "an integer", float: "a number", str: "text",
            list: "a list", dict: "an object", type(None): "null"}.get(type(value), "a value")
    shown = " ".join(repr(value).split())
    if len(shown) > _SHOWN:
        shown = shown[:_SHOWN] + "..."
    return f"{kind} ({shown})" if value is not None else kind
