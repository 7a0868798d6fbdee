# ruff: noqa: RUF001 - CJK, Hebrew and full-width punctuation are the point
"""Hostile and odd pages, in Markdown that Python-Markdown (MkDocs) and MyST (Sphinx) both read."""

from __future__ import annotations

#: One 50,000-line code block (`text`: highlighting speed is the engine's business, not ours).
HUGE_CODE = "```text\n" + "\n".join(f"value_{i} = {i}  # line {i}" for i in range(50_000)) + (
    "\n```\n")
#: One paragraph of 200,000 characters without a sentence end.
LONG_PARAGRAPH = ("word " * 40_000).strip()

PAGES: dict[str, str] = {
    "empty": "",
    "blank": "\n\n   \n\t\n",
    "no-heading": "Just a paragraph of text.\n\nAnother paragraph, still no heading.\n",
    "only-headings": "# Top\n\n## Second\n\n### Third\n\n## Fourth\n\n###### Sixth\n",
    "symbol-headings": (
        "# Symbols\n\nIntro.\n\n## ?!?\n\nBody one.\n\n## 🎉🚀\n\nBody two.\n\n## —\n\n"
        "Body three.\n\n## ***\n\nBody four.\n"
    ),
    "duplicate-headings": "# Same\n\n## Same\n\nOne.\n\n## Same\n\nTwo.\n\n### Same\n\nThree.\n",
    "unicode-ids": (
        '<h2 id="ünï-çødé">Ünï çødé</h2>\n\n<p>Body one.</p>\n\n'
        '<h2 id="日本語">日本語</h2>\n\n<p>Body two.</p>\n\n'
        '<h2 id="a b&amp;c">Spaces and amp</h2>\n\n<p>Body three.</p>\n'
    ),
    "deep-html-list": "# Deep\n\n" + "<ul><li>" * 3000 + "deepest\n",
    # Text at every level: past the nesting mdchunk follows, the rest is one paragraph.
    "deep-html-list-items": "# Deep\n\n" + "".join(f"<ul><li>item {i} " for i in range(3000))
    + "deepest\n",
    "deep-html-quote": "# Deep\n\n" + "<blockquote>" * 3000 + "deepest\n",
    "deep-html-mixed": "# Deep\n\n" + "<div><ol><li><blockquote><p><em>" * 1000 + "deepest\n",
    "deep-md-quote": "# Deep\n\n" + "> " * 2000 + "deepest quote\n",
    # Python-Markdown itself recurses per list level (RecursionError near 300 levels, before
    # mdchunk sees the page); 120 levels is what both engines render.
    "deep-md-list": "# Deep\n\n" + "".join("    " * i + "- item\n" for i in range(120)),
    "long-paragraph": "# Long\n\n" + LONG_PARAGRAPH + "\n",
    "huge-code": "# Code\n\n" + HUGE_CODE,
    "cjk": (
        "# 标题\n\n" + "这是一个很长的句子，用来测试分块。" * 300 + "真的吗？" * 100
        + "好！" * 100 + "\n\n## 日本語\n\n" + "これは日本語の文です。" * 200 + "\n"
    ),
    "thai": "# ภาษาไทย\n\n" + "ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ " * 2000 + "\n",
    # Thai with no space at all: cut between characters, never off the vowel or tone marks
    # (and SARA AM) that sit on a letter.
    "thai-unspaced": "# น้ำใจ\n\n" + "ที่นี่มีน้ำใจและความสำเร็จ" * 1500 + "\n",
    "rtl": (
        "# עברית\n\n" + "שלום עולם. " * 500 + "\n\n## العربية\n\n" + "مرحبا بالعالم. \u200f" * 500
        + "\n\n## Mixed \u202eoverride\u202c\n\nLTR \u2067עברית\u2069 and back.\n"
    ),
    "zero-width-and-controls": (
        "# Zero\u200bwidth\n\nText\u200b with\u200c zero\u200d width\ufeff and \u2060joiners.\n\n"
        "Control \x01\x07\x1b[31m chars \x7f here.\n"
    ),
    "nul": "# Nul bytes\n\nText with a \x00 NUL byte.\n\n\x00\x00\n\nMore \x00 text.\n",
    "malformed-html": (
        "# Malformed\n\n<div><p>unclosed <b>bold <i>italic\n\n<table><tr><td>cell\n\n"
        "</span></div></div></table>\n\nAfter the mess.\n\n<div\n\n<p <<>>\n\n"
        '<a href="javascript:alert(1)" onclick="x()">click</a> <img src=x onerror=alert(1)>\n'
    ),
    "script-style": (
        "# Scripts\n\nVisible text.\n\n<script>var SCRIPTMARKER = '<p>x</p>';</script>\n\n"
        "<style>.x { content: 'STYLEMARKER'; }</style>\n\nMore visible text.\n\n"
        "<noscript>NOSCRIPTMARKER</noscript>\n\n<template><p>TEMPLATEMARKER</p></template>\n\n"
        "<script>\nunclosed SCRIPTMARKER\n"
    ),
}

#: Pages whose index is expected to be empty.
EMPTY = {"empty", "blank"}
