"""What `mdchunk stats` prints: an index at a glance."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

BAR_WIDTH = 40
BINS = 8


def _tokens(record: dict[str, Any]) -> int:
    return int((record.get("tokenStats") or {}).get("tokens") or 0)


def _max_tokens(records: Sequence[dict[str, Any]]) -> int:
    for record in records:
        options = ((record.get("metadata") or {}).get("chunkingOptions")) or {}
        if isinstance(options.get("max_tokens"), int):
            return int(options["max_tokens"])
    return 512


def histogram(counts: Sequence[int], limit: int) -> list[str]:
    """Text bars of `counts` in `BINS` equal bins up to `limit`, plus one bin above it."""
    width = max(1, -(-limit // BINS))
    edges = [(index * width, (index + 1) * width) for index in range(BINS)]
    tally = [sum(1 for n in counts if low <= n < high) for low, high in edges]
    tally[-1] += sum(1 for n in counts if edges[-1][1] <= n <= limit)
    labels = [f"{low:>5}-{high - 1:<5}" for low, high in edges]
    over = sum(1 for n in counts if n > limit)
    if over:
        tally.append(over)
        labels.append(f"  > {limit:<6}")
    peak = max(tally, default=0) or 1
    return [
        f"  {label} {'█' * round(BAR_WIDTH * value / peak):<{BAR_WIDTH}} {value}"
        for label, value in zip(labels, tally, strict=True)
    ]


def render_stats(records: Sequence[dict[str, Any]]) -> str:
    """The report: pages, chunks, token totals, histogram, oversize and small chunks."""
    counts = [_tokens(record) for record in records]
    pages = {record.get("parentId") for record in records}
    limit = _max_tokens(records)
    lines = [
        f"pages:  {len(pages)}",
        f"chunks: {len(records)}",
    ]
    if counts:
        ordered = sorted(counts)
        lines.append(
            f"tokens: {sum(counts)} total, min {ordered[0]}, median "
            f"{ordered[len(ordered) // 2]}, mean {sum(counts) / len(counts):.0f}, "
            f"max {ordered[-1]}"
        )
        lines.append(f"token histogram (max_tokens {limit}):")
        lines.extend(histogram(counts, limit))
    for title, flag, reason_key in (("oversize", "allowOversize", "oversizeReason"),
                                    ("small", "smallChunk", "smallChunkReason")):
        flagged = [r for r in records if (r.get("flags") or {}).get(flag)]
        lines.append(f"{title} chunks: {len(flagged)}")
        for record in flagged:
            reason = (record.get("flags") or {}).get(reason_key) or ""
            lines.append(f"  {record.get('id')}  {_tokens(record)} tokens  "
                         f"{record.get('url') or '/'}  {reason}".rstrip())
    return "\n".join(lines)
