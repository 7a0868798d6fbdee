"""The natural questions of `benchmarks/questions/*.yaml`, read and checked (how they were made
and the rules: the README.md there); `benchmarks/questions.py` scores a search on them."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import yaml

QUESTIONS = Path(__file__).resolve().parent / "questions"
SITES = ("nodejs", "example-mkdocs", "example-sphinx")
SPLITS = ("dev", "test")
KINDS = ("task", "api", "concept", "troubleshooting")


@dataclasses.dataclass(frozen=True)
class Question:
    """A question and the sections that answer it (built page url + `#anchor`)."""

    id: str
    site: str
    split: str
    kind: str
    text: str
    gold: tuple[str, ...]


def load_questions(folder: Path = QUESTIONS, split: str = "all") -> dict[str, list[Question]]:
    """The questions of every `<site>.yaml` in `folder`, by site, of `split` (`all`: both).
    Raises ValueError naming the file and question of the first malformed entry."""
    found: dict[str, list[Question]] = {}
    seen: set[str] = set()
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for question in parse_question_file(data, path.name):
            if question.id in seen:
                raise ValueError(f"{path.name}: question id {question.id!r} is used twice")
            seen.add(question.id)
            if split in ("all", question.split):
                found.setdefault(question.site, []).append(question)
    return found


def parse_question_file(data: Any, name: str) -> list[Question]:
    """The questions of one file's YAML `data` (`site:` and `questions:`), checked."""
    if not isinstance(data, dict) or data.get("site") not in SITES:
        raise ValueError(f"{name}: needs `site:` (one of {', '.join(SITES)}) and `questions:`")
    entries = data.get("questions")
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{name}: `questions:` must be a non-empty list")
    return [parse_question(entry, data["site"], f"{name} entry {number}")
            for number, entry in enumerate(entries, start=1)]


def parse_question(entry: Any, site: str, where: str) -> Question:
    """One question entry: `id`, `split`, `kind`, `question` and a list of `gold` urls."""
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: not a mapping")
    where = f"{where} ({entry.get('id', 'no id')})"
    missing = [key for key in ("id", "split", "kind", "question", "gold") if not entry.get(key)]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(missing)}")
    for key, allowed in (("split", SPLITS), ("kind", KINDS)):
        if entry[key] not in allowed:
            raise ValueError(f"{where}: {key} must be one of {allowed}, not {entry[key]!r}")
    gold = entry["gold"]
    if not isinstance(gold, list) or not all(isinstance(url, str) and url for url in gold):
        raise ValueError(f"{where}: gold must be a list of page url#anchor strings")
    if not isinstance(entry["question"], str):
        raise ValueError(f"{where}: the question must be a string")
    return Question(str(entry["id"]), site, entry["split"], entry["kind"],
                    entry["question"].strip(), tuple(gold))
