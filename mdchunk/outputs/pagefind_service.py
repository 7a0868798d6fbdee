"""Pagefind's Python service, answering as fast as its binary does, and failing when it stops.

`pagefind.service.PagefindService` talks to Pagefind's binary (`pagefind --service`) over its
stdin and stdout: base64 JSON messages, each ended by a comma. Its reader waits a tenth of a
second before it reads each answer, so that a site's sections, one record each, would take a
tenth of a second apiece whatever the binary's speed (Pagefind issue #976); and when the binary
stops, the reader fails with nothing to tell the calls that wait, which then wait forever.

`ResponsiveService` keeps the service (launching the binary, sending, `create_index` and the
`PagefindIndex` it returns) and replaces the reader: each answer is read as soon as it is
written, and when the binary stops every call that waits, and every later one, raises
`PagefindError` with what the binary said. This module imports `pagefind`: import it only once
`mdchunk.outputs.pagefind.require_pagefind` found it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
from typing import TYPE_CHECKING, Any, cast

from pagefind.service import PagefindService

from mdchunk.errors import PagefindError

if TYPE_CHECKING:
    from pagefind.service.types import InternalRequestPayload, InternalResponsePayload

_SAID_AT_MOST = 2000
"""Characters of the binary's own output kept for an error message."""
_READ_SIZE = 1 << 20
"""Bytes read from the binary at a time."""


class ResponsiveService(PagefindService):
    """A `PagefindService` whose reader takes each answer at once (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        self._stopped: PagefindError | None = None
        self._said = ""

    async def launch(self) -> ResponsiveService:
        """Start the binary; raise `PagefindError` when it cannot start."""
        try:
            await super().launch()
        except OSError as error:
            raise PagefindError(f"Pagefind's binary {self._bin} cannot start: {error}"
                                ) from error
        return self

    async def send(self, payload: InternalRequestPayload) -> InternalResponsePayload:
        """Send one request and wait for its answer; raise `PagefindError` once the binary
        stopped, or when it answers with an error."""
        if self._stopped is not None:
            raise self._stopped
        try:
            return await super().send(payload)
        except (BrokenPipeError, ConnectionResetError) as error:
            # The binary stopped: its last words reach the reader after the broken pipe.
            await asyncio.wait([self._poll_task], timeout=5)
            raise self._stopped or PagefindError(
                f"Pagefind's binary {self._bin} stopped reading ({error})") from error

    async def _wait_for_responses(self) -> None:
        """Read each answer as it comes, until the binary stops. Answers are read in pieces
        (the service's reader takes at most 2 MiB at a time; the bundle's files come in one
        answer)."""
        stdout = self._backend.stdout
        assert stdout is not None
        unfinished: list[bytes] = []
        while True:
            try:
                data = await stdout.read(_READ_SIZE)
            except OSError as error:
                self._stop(f"cannot be read ({error})")
                return
            if not data:
                self._note(b"".join(unfinished))
                self._stop("stopped")
                return
            *ends, rest = data.split(b",")
            for end in ends:
                self._answer(b"".join([*unfinished, end]))
                unfinished = []
            unfinished.append(rest)

    def _answer(self, message: bytes) -> None:
        """Settle the call that `message` answers. Anything before the message on its line is
        the binary's own output (its stderr shares the pipe), kept for an error message."""
        said, _, encoded = message.rpartition(b"\n")
        self._note(said)
        try:
            response = json.loads(base64.b64decode(encoded, validate=True))
        except (binascii.Error, ValueError):
            self._note(encoded)
            return
        payload = response.get("payload") or {}
        waiting = self._responses.get(_message_id(response, payload))
        if waiting is None or waiting.done():
            return
        if payload.get("type") == "Error":
            waiting.set_exception(PagefindError(f"Pagefind: {payload.get('message')}"))
        else:
            # (the binary answers a request with the payload of its kind, as the SDK reads it)
            waiting.set_result(cast("InternalResponsePayload", payload))

    def _note(self, said: bytes) -> None:
        if said.strip():
            text = self._said + said.decode(errors="replace")
            self._said = text[-_SAID_AT_MOST:]

    def _stop(self, how: str) -> None:
        """Fail every call that waits, and every later one."""
        said = self._said.strip()
        self._stopped = PagefindError(
            f"Pagefind's binary {self._bin} {how}" + (f": {said}" if said else ""))
        for waiting in self._responses.values():
            if not waiting.done():
                waiting.set_exception(self._stopped)

    async def close(self) -> None:
        """Stop the reader and the binary (the calls were all answered: nothing waits)."""
        self._poll_task.cancel()
        if self._backend.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._backend.terminate()
        await self._backend.wait()


def _message_id(response: dict[str, Any], payload: dict[str, Any]) -> Any:
    """The id of the request `response` answers: its own, or, for a request the binary could
    not parse (it then answers with an error and no id), the id inside the request it quotes."""
    if response.get("message_id") is not None:
        return response["message_id"]
    try:
        return json.loads(payload.get("original_message") or "null")["message_id"]
    except (ValueError, TypeError, KeyError):
        return None
