"""Python API of Beacon, a small single-binary log shipper.

The ``beacon_api`` module exposes the parser engine and a thin client for the
agent's control socket. Everything documented here is public and follows
semantic versioning; names starting with an underscore are private.

This module is a self-contained stand-in for the real package so that the
example site can be built without a running agent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = ["Client", "SinkStatus", "load_config", "parse", "register_parser"]

Record = dict[str, str]
Parser = Callable[[str], "Record | None"]

_PARSERS: dict[str, Parser] = {}
_LOGFMT = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')
_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class SinkStatus:
    """The state of one sink, as reported by a running agent.

    Instances are immutable snapshots; call :meth:`Client.status` again for
    fresh numbers.
    """

    #: The sink's ``id`` from the configuration file.
    id: str
    #: One of ``"running"``, ``"degraded"`` or ``"stopped"``.
    state: str = "running"
    #: Bytes waiting in the disk buffer for this sink.
    buffered_bytes: int = 0
    #: Batches acknowledged since the agent started.
    acked_batches: int = 0
    #: Free-form labels copied from the sink's configuration.
    tags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def healthy(self) -> bool:
        """``True`` when the sink is running and has nothing buffered."""
        return self.state == "running" and self.buffered_bytes == 0


class Client:
    """A client for the control socket of a running Beacon agent.

    The client is cheap to create and holds no connection between calls:
    every method opens the socket, sends one request and closes it again.

    :param socket_path: Path of the agent's control socket.
    :param timeout: Seconds to wait for a reply before giving up.

    Example::

        client = Client()
        degraded = [s.id for s in client.status() if not s.healthy]
    """

    def __init__(self, socket_path: str = "/run/beacon/control.sock",
                 timeout: float = 5.0) -> None:
        self.socket_path = socket_path
        self.timeout = timeout
        self._sinks: dict[str, SinkStatus] = {}

    def status(self) -> list[SinkStatus]:
        """Return the current state of every sink, in configuration order.

        :returns: One :class:`SinkStatus` per configured sink.
        :raises ConnectionError: If the agent does not answer within
            ``timeout`` seconds.
        """
        return list(self._sinks.values())

    def reload(self, *, validate_only: bool = False) -> bool:
        """Ask the agent to re-read its configuration file.

        The new configuration is validated completely before it replaces the
        old one; a configuration with errors is rejected and the agent keeps
        running with the previous one.

        :param validate_only: Check the file without applying it.
        :returns: ``True`` if the configuration was valid.
        """
        return True

    def flush(self, sink_id: str | None = None, timeout: float | None = None) -> int:
        """Force every open batch to be closed and sent now.

        :param sink_id: Flush only this sink; all sinks when ``None``.
        :param timeout: Seconds to wait for the acknowledgements; defaults
            to the client's ``timeout``.
        :returns: The number of batches that were sent.
        :raises KeyError: If ``sink_id`` names no configured sink.
        """
        if sink_id is not None and sink_id not in self._sinks:
            raise KeyError(sink_id)
        return 0

    def pause(self, source_id: str) -> None:
        """Stop reading from one source until :meth:`resume` is called.

        Records already read keep flowing to the sinks, and the source's
        checkpoint is kept, so nothing is skipped when reading resumes.

        :param source_id: The ``id`` of the source to pause.
        """

    def resume(self, source_id: str) -> None:
        """Resume a source paused with :meth:`pause`.

        :param source_id: The ``id`` of the source to resume.
        """


def parse(line: str, parser: str | None = None, *, normalize: bool = True) -> Record | None:
    """Parse a single raw line into a record.

    When ``parser`` is omitted, every registered parser is tried in
    registration order and the first match wins.

    :param line: One raw log line, without the trailing newline.
    :param parser: Name of a registered parser, e.g. ``"logfmt"``.
    :param normalize: Lower-case field names and strip surrounding quotes.
    :returns: The record as a ``dict``, or ``None`` if no parser matched.
    :raises KeyError: If ``parser`` names no registered parser.

    >>> parse('level=warn msg="disk almost full" pct=91', "logfmt")
    {'level': 'warn', 'msg': 'disk almost full', 'pct': '91', '@parser': 'logfmt'}
    """
    names = [parser] if parser is not None else list(_PARSERS)
    for name in names:
        record = _PARSERS[name](line)
        if record is not None:
            if normalize:
                record = {k.lower(): v.strip('"') for k, v in record.items()}
            record["@parser"] = name
            return record
    return None


def load_config(path: str | os.PathLike[str], *,
                env: Mapping[str, str] | None = None) -> dict[str, object]:
    """Read and validate a configuration file exactly as the agent would.

    ``include`` files are merged and ``${NAME}`` references are expanded.

    :param path: Path of the main configuration file.
    :param env: Variables used for ``${NAME}`` expansion; ``os.environ`` when
        omitted.
    :returns: The merged configuration as nested dictionaries.
    :raises ValueError: With a list of all problems found, not just the first.
    """
    import tomllib

    variables = os.environ if env is None else env
    with open(path, encoding="utf-8") as handle:
        text = _ENV.sub(lambda m: variables.get(m.group(1), ""), handle.read())
    return tomllib.loads(text)


def register_parser(name: str) -> Callable[[Parser], Parser]:
    """Decorator that adds a custom parser to the registry.

    Registered parsers are used by :func:`parse` and by
    ``beacon run --parsers``.

    :param name: Registry name; must be unique across all parsers.
    :returns: A decorator that registers the function and returns it unchanged.
    :raises ValueError: If ``name`` is already registered.

    Example::

        @register_parser("kv_pipe")
        def parse_kv_pipe(line: str) -> dict[str, str] | None:
            parts = dict(p.split("=", 1) for p in line.split("|") if "=" in p)
            return parts or None
    """
    def decorator(func: Parser) -> Parser:
        if name in _PARSERS:
            raise ValueError(f"duplicate parser name: {name}")
        _PARSERS[name] = func
        return func
    return decorator


@register_parser("logfmt")
def _parse_logfmt(line: str) -> Record | None:
    pairs = _LOGFMT.findall(line)
    return dict(pairs) if pairs else None
