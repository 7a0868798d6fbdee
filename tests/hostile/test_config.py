"""Bad configuration of every option, in both engines: the message names the option, shows the
bad value and says what is allowed; it comes at startup, before any page is built."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sphinx.errors import ExtensionError

from mdchunk.errors import OptionError
from mdchunk.options import ChunkOptions
from mdchunk.session.config import COMMAND, SITE_OPTIONS, SiteFacts, build_settings, options_of
from mkdocs_mdchunk.plugin_config import MdChunkConfig
from sphinx_mdchunk import _config as sphinx_config
from tests.hostile.conftest import SPHINX_CONF, build_sphinx
from tests.test_sphinx import make_project

#: option -> (bad value, what the message shows of it, a fragment of what is allowed).
BAD: dict[str, list[tuple[Any, str, str]]] = {
    "enabled": [("yes", "'yes'", "bool")],
    "max_tokens": [("big", "'big'", "integer"), (8, "8", ">= 16"), (True, "True", "integer")],
    "min_tokens": [(-1, "-1", ">= 0"), (900, "900", "smaller than max_tokens")],
    "split_level": [(0, "0", "1..6"), (7, "7", "1..6"), (2.5, "2.5", "integer")],
    "overlap_tokens": [(-5, "-5", ">= 0"), (400, "400", "at most half")],
    "overlap_mode": [("both", "'both'", "metadata")],
    "encoding": [("no_such_encoding", "'no_such_encoding'", "cl100k_base"), (5, "5", "")],
    "embed_template": [("{text} {nope}", "{nope}", "{context}"), ("no text", "'no text'",
                                                                  "{text}"),
                       ("{text", "'{text'", "template")],
    "embed_links": [("plain", "'plain'", "text, markdown"), (False, "False", "str")],
    "max_tokens_bounds": [("embed", "'embed'", "embedText, originalText"),
                          (True, "True", "str")],
    "preset": [("huge", "'huge'", "code-heavy")],
    "adaptive_sizing": [("lots", "'lots'", "mapping"), ({"base": 1}, "'base'", "base_size"),
                        ({"min_scale": 9}, "9", "(0, 4]")],
    "output": [("../x.jsonl", "'../x.jsonl'", "relative"), ("/abs.jsonl", "'/abs.jsonl'",
                                                            "relative"),
               ("C:\\x.jsonl", "'C:\\\\x.jsonl'", "relative"),
               ("a\\..\\..\\x", "'a\\\\..\\\\..\\\\x'", "relative"),
               ("\\\\server\\share", "'\\\\\\\\server\\\\share'", "relative"),
               ("", "''", "relative"), (3, "3", "str")],
    "formats": [(["csv"], "csv", "native"), ("native", "'native'", "list")],
    "write_markdown": [("no", "'no'", "bool")],
    "inspector": [("yes", "'yes'", "bool")],
    "workers": [(-1, "-1", "0 (chunk inline) or more"), ("two", "'two'", "integer")],
    "exclude": [("drafts/*", "'drafts/*'", "list"), ([1], "1", "str")],
    "duplicates": [("remove", "'remove'", "mark, drop, off"), (False, "False", "str")],
    "cache": [("yes", "'yes'", "bool"), (3, "3", "bool")],
    "cache_dir": [(5, "5", "str"), ("", "''", "must name a folder")],
    "pagefind_output": [("../x", "'../x'", "relative"), ("_mdchunk", "'_mdchunk'",
                                                         "must not be in _mdchunk/"),
                        (".", "'.'", "a folder inside the site"), (3, "3", "str")],
    "pagefind_filters": [("tags", "'tags'", "list"), ([1], "1", "str")],
    "page_kinds": [("changelog/*", "'changelog/*'", "mapping"),
                   ({"faq/*": "faq"}, "'faq'", "guide, reference, changelog, blog, index"),
                   ({"": "blog"}, "''", "glob over page urls")],
    "pagefind_search_page": [("yes", "'yes'", "bool"),
                             (True, "True", "add pagefind to formats")],
    "embed_model": [(3, "3", "str"), ("word2vec", "'word2vec'", "wordllama, model2vec:"),
                    ("wordllama", "'wordllama'", "add sqlite to formats")],
    "llms_txt": [("yes", "'yes'", "bool")],
    "llms_full": [(1, "1", "bool")],
    "llms_full_max_tokens": [(0, "0", "1 or more"), ("big", "'big'", "integer"),
                             (True, "True", "integer")],
    "llms_optional": [("changelog*", "'changelog*'", "list"), ([1], "1", "str")],
    "llms_directive": [("on", "'on'", "bool")],
    "tokenizer": [("fast", "'fast'", "rs-bpe"), (3, "3", "str")],
    "version": [("1.0/beta", "'1.0/beta'", "version folder"), ("..", "'..'", "version folder"),
                ("", "''", "version folder"), (3, "3", "str")],
}
CASES = [(name, *case) for name, cases in BAD.items() for case in cases]


def test_every_option_is_covered() -> None:
    mkdocs_options = {name for name, _ in MdChunkConfig._schema}
    sphinx_options = {option.name for option in options_of("sphinx")}
    command_options = {option.name for option in options_of(COMMAND)}
    assert mkdocs_options | sphinx_options | command_options == set(BAD)  # (one's only, maybe)
    assert {option.name for option in SITE_OPTIONS} == set(BAD)
    assert {f.name for f in dataclasses.fields(ChunkOptions)} <= set(BAD)


@pytest.mark.parametrize(("option", "value", "shown", "allowed"), CASES)
def test_mkdocs_message(option: str, value: Any, shown: str, allowed: str) -> None:
    if option not in {name for name, _ in MdChunkConfig._schema}:
        pytest.skip(f"{option} is not a MkDocs option")
    config = MdChunkConfig()
    config.load_dict({option: value})
    failed, _ = config.validate()
    assert failed, f"{option}={value!r} was accepted"
    key, error = failed[0]
    # MkDocs prints: Plugin 'mdchunk' option '<key>': <error>
    message = f"option '{key}': {error}"
    assert f"'{option}" in message and shown in message and allowed in message, message


@pytest.mark.parametrize(("option", "value", "shown", "allowed"), CASES)
def test_command_message(option: str, value: Any, shown: str, allowed: str) -> None:
    """The `mdchunk` command's settings go through the same schema (`build_settings`)."""
    with pytest.raises(OptionError) as raised:
        build_settings({option: value}, SiteFacts())
    message = f"{raised.value.option}: {raised.value.message}"
    assert message.startswith(option) and shown in message and allowed in message, message


def _sphinx_config(**values: Any) -> SimpleNamespace:
    settings = {f"mdchunk_{option.name}": option.default for option in options_of("sphinx")}
    settings.update({f"mdchunk_{name}": value for name, value in values.items()})
    return SimpleNamespace(**settings, overrides={})  # overrides: the names given with -D


@pytest.mark.parametrize(("option", "value", "shown", "allowed"), CASES)
def test_sphinx_message(option: str, value: Any, shown: str, allowed: str) -> None:
    if option not in {option.name for option in options_of("sphinx")}:
        pytest.skip(f"{option} is not a Sphinx option")
    with pytest.raises(ExtensionError) as raised:
        sphinx_config.settings(_sphinx_config(**{option: value}),  # type: ignore[arg-type]
                               SiteFacts())
    message = str(raised.value)
    assert f"mdchunk_{option}" in message and shown in message and allowed in message, message


def test_sphinx_stops_before_any_page_is_built(tmp_path: Path) -> None:
    code, _, out = build_sphinx(tmp_path, {"index.md": "# Home\n"}, "mdchunk_output = 'C:\\\\x'\n")
    assert code != 0
    assert not (out / "index.html").exists() and not (out / "chunks.jsonl").exists()


def test_sphinx_warns_of_names_it_does_not_know_with_a_suggestion(tmp_path: Path) -> None:
    code, warnings, out = build_sphinx(
        tmp_path, {"index.md": "# Home\n\nText.\n"},
        "mdchunk_max_token = 100\nmdchunk_workers = 2\nmdchunk_tokenizer = 'tiktoken'\n")
    assert code == 0 and (out / "chunks.jsonl").is_file()
    assert ("mdchunk_max_token is not an mdchunk option and is ignored; did you mean "
            "'mdchunk_max_tokens'?") in warnings, warnings
    assert "mdchunk_workers is an option of the MkDocs plugin only" in warnings, warnings
    assert ("mdchunk_tokenizer is an option of the mdchunk command only and is ignored here: "
            "the environment variable MDCHUNK_TOKENIZER names it") in warnings, warnings
    code, warnings, _ = build_sphinx(tmp_path / "strict", {"index.md": "# Home\n"},
                                     "mdchunk_max_token = 100\n", "-W")
    assert code != 0 and "mdchunk_max_token" in warnings


def test_a_bad_sphinx_value_stops_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    source = make_project(tmp_path, {"index.md": "# Home\n"},
                          SPHINX_CONF + "mdchunk_max_tokens = -5\n")
    result = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(source),
                             str(tmp_path / "out")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 2
    output = result.stdout + result.stderr
    assert "mdchunk_max_tokens = -5: must be >= 16, got -5" in output, output
    assert "Traceback" not in output and "report" not in output, output
    assert not (tmp_path / "out" / "index.html").exists()
