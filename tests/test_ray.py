"""Many built sites chunked on a local Ray instance (`mdchunk.ray`): the records of each site are
those `mdchunk site` writes for it, byte for byte but for the site's prefix in the ids."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mdchunk.chunking.chunk import uuid5_text
from mdchunk.cli import main
from mdchunk.engines.site import chunk_site
from mdchunk.errors import MdChunkError, OptionError
from mdchunk.session.config import SiteFacts, build_settings
from mdchunk.settings import BuildSettings
from tests.conftest import EXAMPLE_SITE, SiteBuilder, build_mkdocs
from tests.test_languages import build_i18n

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'mdchunk[ray]')")
pytest.importorskip("ray.data", reason="Ray Data is not installed (pip install 'mdchunk[ray]')")

from mdchunk.ray import RaySite, site_records, write_site_outputs  # noqa: E402 - after Ray
from mdchunk.ray.sites import page_hashes  # noqa: E402 - after Ray

#: Ray Data's context warns of the deprecated options it sets itself (Ray 2.60), outside mdchunk.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.data.context")
EPOCH = "1700000000"
#: The fields a site's prefix changes: the ids, and the uuids made from them.
ID_FIELDS = ("id", "parentId", "prevId", "nextId")
UUID_FIELDS = ("uuid", "documentUuid")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A local Ray instance of two CPUs, its workers' records reproducible (SOURCE_DATE_EPOCH)."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"SOURCE_DATE_EPOCH": EPOCH}})
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example site, built once, with a page that repeats another (duplicate chunks)."""
    source = tmp_path_factory.mktemp("example") / "mkdocs"
    shutil.copytree(EXAMPLE_SITE, source, ignore=shutil.ignore_patterns("site", "site-material"))
    docs = source / "docs" / "guide"
    (docs / "math-again.md").write_text((docs / "math.md").read_text(encoding="utf-8"),
                                        encoding="utf-8")
    return build_mkdocs(source / "mkdocs.yml")


@pytest.fixture(scope="module")
def bare_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example site built without the plugin: what a platform gets of a project (its
    HTML), in which `mdchunk site` then writes its outputs."""
    source = tmp_path_factory.mktemp("bare") / "mkdocs"
    shutil.copytree(EXAMPLE_SITE, source, ignore=shutil.ignore_patterns("site", "site-material"))
    return build_mkdocs(source / "mkdocs.yml", plugins=["search"])


def folder_files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder`, by its path in it."""
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def mdchunk_site(site: Path, *flags: str) -> dict[str, bytes]:
    """Run `mdchunk site` on `site` with `flags`; return the files it wrote into the site
    (new or changed), but for the HTML pages it marks for agents."""
    before = folder_files(site)
    result = CliRunner().invoke(main, ["site", str(site), "-j", "1", *flags],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {path: data for path, data in folder_files(site).items()
            if before.get(path) != data and not path.endswith(".html")}


@pytest.mark.slow
def test_each_sites_records_are_those_of_mdchunk_site(
        local_ray: None, built_site: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Three copies of a site: one without a prefix (its records are `mdchunk site`'s, byte for
    byte and in its order), one named by its folder, one by the prefix given; the ids of all
    three are unique, each site's duplicate marks are its own, and the pages `exclude` leaves
    out are left out."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    copies = [tmp_path / name for name in ("plain", "docs-b", "folder-c")]
    for copy in copies:
        shutil.copytree(built_site, copy)
    sites = [RaySite(copies[0], prefix=""), copies[1], RaySite(copies[2], prefix="project-c")]
    settings = BuildSettings(exclude=("reference/huge-code/*",))
    rows = site_records(sites, settings).take_all()
    for copy in copies:
        chunk_site(copy, dataclasses.replace(settings, index="post.jsonl"))
    expected = (copies[0] / "post.jsonl").read_text(encoding="utf-8").splitlines()
    assert any(json.loads(line)["duplicateOf"] for line in expected)  # (the marks are tested)
    assert not any("huge-code" in json.loads(line)["id"] for line in expected)
    by_site = {name: [row for row in rows if row["site"] == name]
               for name in ("plain", "docs-b", "project-c")}
    assert sum(map(len, by_site.values())) == len(rows) == 3 * len(expected)
    assert [row["record"] for row in by_site["plain"]] == expected
    for name, prefix, copy in (("docs-b", "docs-b", copies[1]),
                               ("project-c", "project-c", copies[2])):
        theirs = (copy / "post.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(theirs) == len(by_site[name])
        for row, line in zip(by_site[name], theirs, strict=True):
            assert _with_prefix(json.loads(line), prefix) == json.loads(row["record"])
            assert row["id"] == json.loads(row["record"])["id"]
    assert len({row["id"] for row in rows}) == len(rows)
    assert len({json.loads(row["record"])["uuid"] for row in rows}) == len(rows)


def _with_prefix(record: dict[str, Any], prefix: str) -> dict[str, Any]:
    """`record` (of `mdchunk site`) as it is when its ids start with `prefix`."""
    def prefixed(value: str | None) -> str | None:
        return None if value is None else value.replace("doc:", f"doc:{prefix}/", 1)

    changed = {**record, **{field: prefixed(record[field]) for field in ID_FIELDS}}
    changed["uuid"] = uuid5_text(changed["id"])
    changed["documentUuid"] = uuid5_text(changed["parentId"])
    if record["duplicateOf"]:
        changed["duplicateOf"] = {**record["duplicateOf"],
                                  "id": prefixed(record["duplicateOf"]["id"])}
    assert all(changed[field] != record[field] for field in ("id", *UUID_FIELDS))
    return changed


@pytest.mark.slow
def test_the_records_written_as_parquet_and_json_read_back(
        local_ray: None, built_site: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Of a site named by its path relative to the folder `site_records` is called in, which
    is not the Ray workers'."""
    monkeypatch.chdir(built_site.parent)
    records = site_records([Path(built_site.name)]).materialize()
    rows = sorted(records.take_all(), key=lambda row: row["id"])
    records.write_parquet(str(tmp_path / "parquet"))
    records.write_json(str(tmp_path / "json"))
    import pyarrow.parquet

    table = pyarrow.parquet.read_table(tmp_path / "parquet")
    assert sorted(table.to_pylist(), key=lambda row: row["id"]) == rows
    lines = [json.loads(line) for path in sorted((tmp_path / "json").iterdir())
             for line in path.read_text(encoding="utf-8").splitlines()]
    assert sorted(lines, key=lambda row: row["id"]) == rows
    assert rows and all(json.loads(row["record"])["id"] == row["id"] for row in rows)


def test_sites_that_share_a_name_or_a_prefix_that_is_no_folder_fail(tmp_path: Path) -> None:
    """Both are found before Ray runs anything, naming the sites."""
    first, second = tmp_path / "a" / "site", tmp_path / "b" / "site"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    with pytest.raises(OptionError, match=r"a/site and .*b/site are both named 'site'"):
        site_records([first, second])
    with pytest.raises(OptionError, match=r"'x/y' .* must name a folder"):
        site_records([RaySite(first, prefix="x/y")])


@pytest.mark.slow
def test_a_folder_without_built_pages_or_with_other_languages_fails_naming_it(
        local_ray: None, tmp_path: Path) -> None:
    """The docs' sources given for a site fail as with `mdchunk site`; a site built in two
    languages (each in its folder) is refused until mdchunk.ray chunks each language."""
    sources = tmp_path / "docs"
    shutil.copytree(EXAMPLE_SITE / "docs", sources)
    with pytest.raises(MdChunkError, match=f"{sources}: no built documentation page found"):
        site_records([sources]).take_all()
    languages = build_i18n(tmp_path / "i18n", "suffix")
    with pytest.raises(MdChunkError, match=f"{languages}: holds the builds of other languages "
                       r"\(fr\)"):
        site_records([languages]).take_all()


@pytest.mark.slow
def test_a_site_whose_pages_are_all_left_out_has_no_rows(
        local_ray: None, built_site: Path, make_site: SiteBuilder) -> None:
    """Beside another site, and alone."""
    drafts = make_site({"drafts/first.md": "# First\n\nA draft.\n",
                        "drafts/second.md": "# Second\n\nAnother draft.\n"})
    settings = BuildSettings(exclude=("drafts/*",))
    rows = site_records([built_site, RaySite(drafts, prefix="drafts")], settings).take_all()
    assert rows and {row["site"] for row in rows} == {built_site.name}
    assert site_records([RaySite(drafts, prefix="drafts")], settings).take_all() == []


@pytest.mark.slow
def test_each_sites_folder_holds_what_mdchunk_site_writes_into_it(
        local_ray: None, bare_site: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Byte for byte: the index in each format, `llms.txt`, `llms-full` (split into files
    here), the pages' Markdown and twins; with a prefix, the same files, the ids aside. The
    Ray run writes nothing into the sites themselves; each site's row holds the sha256 of its
    HTML files, as its task read them."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    plain, named = tmp_path / "plain", tmp_path / "named"
    for copy in (plain, named):
        shutil.copytree(bare_site, copy)
    flags = ("-f", "native", "-f", "sections", "--llms-full-max-tokens", "3000")
    settings = build_settings({"formats": ["native", "sections"], "llms_full_max_tokens": 3000},
                              SiteFacts())
    sites_before = folder_files(plain), folder_files(named)
    rows = write_site_outputs([RaySite(plain, prefix=""), RaySite(named, prefix="beacon")],
                              settings, tmp_path / "out")
    assert (folder_files(plain), folder_files(named)) == sites_before
    hashes = {"plain": page_hashes(plain), "beacon": page_hashes(named)}
    written = mdchunk_site(plain, *flags)
    assert {"llms.txt", "chunks.jsonl", "sections.jsonl", "index.md",
            "guide/math/index.html.md"} <= set(written)
    assert any(path.startswith("llms-full/") for path in written)
    assert folder_files(tmp_path / "out" / "plain") == written
    prefixed = folder_files(tmp_path / "out" / "beacon")
    assert prefixed.keys() == written.keys()
    for path in written.keys() - {"chunks.jsonl", "sections.jsonl"}:
        assert prefixed[path] == written[path], path
    lines = prefixed["chunks.jsonl"].decode().splitlines()
    assert len(lines) == len(written["chunks.jsonl"].decode().splitlines())
    assert all(json.loads(line)["id"].startswith("doc:beacon/") for line in lines)
    by_site = {row["site"]: row for row in rows}
    assert by_site.keys() == {"plain", "beacon"}
    assert by_site["plain"]["chunks"] == len(lines) == by_site["beacon"]["chunks"]
    assert {name: json.loads(row["hashes"]) for name, row in by_site.items()} == hashes


def run_ray_command(sites: list[str], out: Path, *flags: str) -> Any:
    """`mdchunk ray` on `sites` (a `--sites` file of them) into `out`, in this process (on the
    local Ray instance the test started)."""
    listing = out.parent / f"{out.name}-sites.txt"
    listing.write_text("# the sites\n\n" + "\n".join(sites) + "\n", encoding="utf-8")
    return CliRunner().invoke(main, ["ray", "--sites", str(listing), "--out", str(out), *flags],
                              catch_exceptions=False)


@pytest.mark.slow
def test_the_command_writes_each_sites_outputs_and_chunks_only_the_sites_that_changed(
        local_ray: None, bare_site: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A first run chunks both sites, saying so as each is done; a second run chunks nothing
    and leaves the same bytes; a page changed on one site has that site done again, and only
    it, with its other pages taken from the last run (the page cache, which then holds each
    page once); the run after that finds both sites unchanged again (the state of a site
    chunked again holds its new pages)."""
    import pyarrow.parquet

    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    beacon, relay = tmp_path / "beacon", tmp_path / "relay"
    for copy in (beacon, relay):
        shutil.copytree(bare_site, copy)
    out = tmp_path / "out"
    first = run_ray_command([str(beacon), f"{relay}\trelay-docs"], out)
    assert first.exit_code == 0, first.output
    assert "2 sites: 0 unchanged since the last run, 2 to chunk" in first.stderr
    assert re.search(r"\[2/2 sites, \d+ pages\] (beacon|relay-docs): \d+ pages \(0 unchanged\)",
                     first.stderr)
    pages = int(re.findall(r"\] relay-docs: (\d+) pages", first.stderr)[0])
    assert f"2 chunked ({2 * pages} pages, 0 of them unchanged;" in first.stdout
    written = folder_files(out)
    assert {"sites/beacon/llms.txt", "sites/relay-docs/llms.txt", "records/beacon.parquet",
            "records/relay-docs.parquet", "state.json"} <= set(written)
    assert len([path for path in written if path.startswith("pages/")]) == 2 * pages
    for name in ("beacon", "relay-docs"):
        table = pyarrow.parquet.read_table(out / "records" / f"{name}.parquet").to_pylist()
        lines = (out / "sites" / name / "chunks.jsonl").read_text(encoding="utf-8").splitlines()
        assert [row["record"] for row in table] == lines
        assert {row["site"] for row in table} == {name}
    second = run_ray_command([str(beacon), f"{relay}\trelay-docs"], out)
    assert "0 chunked (0 pages, 0 of them unchanged; 0 chunks), 2 unchanged" in second.stdout
    assert folder_files(out) == written
    page = relay / "guide" / "math" / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace("high-volume", "loud", 1),
                    encoding="utf-8")
    third = run_ray_command([str(beacon), f"{relay}\trelay-docs"], out)
    assert f"1 chunked ({pages} pages, {pages - 1} of them unchanged;" in third.stdout, (
        third.output)
    assert "1 unchanged since the last run" in third.stdout
    again = folder_files(out)
    others = ("sites/relay-docs/", "records/relay-docs", "state.json", "pages/")
    assert {path: data for path, data in again.items() if not path.startswith(others)} == {
        path: data for path, data in written.items() if not path.startswith(others)}
    assert again["sites/relay-docs/chunks.jsonl"] != written["sites/relay-docs/chunks.jsonl"]
    assert b"loud" in again["sites/relay-docs/guide/math.md"]
    assert len([path for path in again if path.startswith("pages/")]) == 2 * pages
    fourth = run_ray_command([str(beacon), f"{relay}\trelay-docs"], out)
    assert "0 chunked (0 pages, 0 of them unchanged; 0 chunks), 2 unchanged" in fourth.stdout
    assert folder_files(out) == again
    fresh = tmp_path / "fresh"
    assert run_ray_command([f"{relay}\trelay-docs"], fresh).exit_code == 0
    assert {path: data for path, data in folder_files(fresh).items()
            if path.startswith(("sites/", "records/"))} == {
        path: data for path, data in again.items() if "relay-docs" in path}


@pytest.mark.slow
def test_a_run_that_fails_says_why_and_leaves_the_last_output_whole(
        local_ray: None, bare_site: Path, tmp_path: Path) -> None:
    """A site that is no folder, and a folder without built pages (the docs' sources) fail,
    naming them; the output of the last run stays as it was, and nothing half-written is
    left beside it."""
    site = tmp_path / "beacon"
    shutil.copytree(bare_site, site)
    out = tmp_path / "out"
    assert run_ray_command([str(site)], out, "--records", "jsonl").exit_code == 0
    written = folder_files(out)
    assert "records/beacon.jsonl" in written
    missing = run_ray_command([str(site), str(tmp_path / "nowhere")], out)
    assert missing.exit_code == 1
    assert f"{tmp_path / 'nowhere'}: not a folder (build the site first)" in missing.output
    sources = tmp_path / "docs"
    shutil.copytree(EXAMPLE_SITE / "docs", sources)
    unbuilt = run_ray_command([str(site), str(sources)], out, "--records", "jsonl")
    assert unbuilt.exit_code == 1
    assert f"Error: {sources}: no built documentation page found" in unbuilt.output
    assert folder_files(out) == written
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith(".out")) == []


@pytest.mark.slow
def test_the_command_starts_a_local_ray_instance_of_its_own(
        bare_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no Ray instance runs and no address is given (a process of its own, without
    `RAY_ADDRESS`): the site's folder holds what `mdchunk site` writes, the ids aside."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    site = tmp_path / "beacon"
    shutil.copytree(bare_site, site)
    (tmp_path / "sites.txt").write_text(f"{site}\n", encoding="utf-8")
    result = subprocess.run([str(Path(sys.executable).with_name("mdchunk")), "ray", "--sites",
                             str(tmp_path / "sites.txt"), "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "1 site: 1 chunked" in result.stdout
    written = folder_files(tmp_path / "out" / "sites" / "beacon")
    expected = mdchunk_site(site)
    assert written.keys() == expected.keys()
    assert {path: data for path, data in written.items() if path != "chunks.jsonl"} == {
        path: data for path, data in expected.items() if path != "chunks.jsonl"}
    assert len(written["chunks.jsonl"].splitlines()) == len(
        expected["chunks.jsonl"].splitlines()) > 0


def test_the_command_without_ray_names_the_extra_to_install(tmp_path: Path) -> None:
    """Where Ray cannot be imported (hidden from the import system here)."""
    (tmp_path / "site").mkdir()
    (tmp_path / "sites.txt").write_text(f"{tmp_path / 'site'}\n", encoding="utf-8")
    code = ("import sys; sys.modules['ray'] = None\n"
            "from mdchunk.cli import main\n"
            f"main(['ray', '--sites', {str(tmp_path / 'sites.txt')!r}, '--out', "
            f"{str(tmp_path / 'out')!r}])\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 1
    assert "pip install 'mdchunk[ray]'" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_site_on_another_file_system_is_read_through_fsspec(bare_site: Path) -> None:
    """A site in fsspec's in-memory file system: named by its folder, and copied where a task
    reads it with the same HTML files, byte for byte (and only those); a url that names no
    folder fails, naming it."""
    import fsspec

    from mdchunk.ray.sites import checked_sites, local_site, page_hashes

    memory = fsspec.filesystem("memory")
    memory.put(str(bare_site), "/sites/beacon", recursive=True)
    try:
        assert [site.name for site in checked_sites(["memory://sites/beacon"])] == ["beacon"]
        with pytest.raises(MdChunkError, match="memory://sites/nowhere: not a folder"):
            checked_sites(["memory://sites/nowhere"])
        with local_site("memory://sites/beacon") as copy:
            assert page_hashes(copy) == page_hashes(bare_site)
            assert {path.suffix for path in copy.rglob("*") if path.is_file()} == {".html"}
    finally:
        memory.rm("/sites", recursive=True)


@pytest.mark.slow
def test_a_site_given_by_its_file_url_has_the_records_of_its_folder(
        local_ray: None, bare_site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read through fsspec in the Ray tasks, by its `file://` url."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    by_folder = site_records([bare_site]).take_all()
    by_url = site_records([bare_site.as_uri()]).take_all()
    assert by_folder and by_url == by_folder


#: Run beside a test (its own process, so that nothing in the test's process holds it back):
#: the first process to open the named pipe argv[1] is killed (SIGKILL) and its pid written
#: to argv[3]; every later one reads the bytes of the file argv[2] from it, once.
PIPE_FEEDER = """
import os, signal, sys, time
from pathlib import Path

pipe, page, killed = Path(sys.argv[1]), Path(sys.argv[2]).read_bytes(), Path(sys.argv[3])


def readers():
    found = []
    for descriptors in Path("/proc").glob("[0-9]*/fd"):
        try:
            links = [os.readlink(descriptor) for descriptor in descriptors.iterdir()]
        except OSError:
            continue
        if str(pipe) in links and int(descriptors.parent.name) != os.getpid():
            found.append(int(descriptors.parent.name))
    return found


first = True
while True:
    try:
        with pipe.open("wb") as writer:
            if first:
                first = False
                pids = readers()
                while not pids:  # (the reader's open returns a moment after the writer's)
                    time.sleep(0.01)
                    pids = readers()
                for pid in pids:
                    os.kill(pid, signal.SIGKILL)
                killed.write_text(" ".join(map(str, pids)))
                while readers():  # (until the killed process lets the pipe go)
                    time.sleep(0.01)
                continue
            writer.write(page)
    except BrokenPipeError:  # a reader that went away: the next one gets the page
        continue
    while readers():  # (one copy a reader: a writer opened before it let go would add more)
        time.sleep(0.01)
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="finds the worker in /proc")
def test_a_worker_killed_mid_run_loses_nothing_and_writes_nothing_twice(
        local_ray: None, bare_site: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One page of one of three sites is a named pipe, which the Ray task that reads the
    site blocks on; that task's worker process is killed (SIGKILL) while the other sites go
    on, then the pipe gives the page to the task Ray retries. The run's outputs are those of
    a run on the same sites that nothing disturbed, byte for byte."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    calm, disturbed = tmp_path / "calm", tmp_path / "disturbed"
    for folder in (calm, disturbed):
        for name in ("beacon", "relay", "courier"):
            shutil.copytree(bare_site, folder / name)
    names = ["beacon", "relay", "courier"]
    assert run_ray_command([str(calm / name) for name in names], tmp_path / "calm-out",
                           "--records", "jsonl").exit_code == 0
    pipe = disturbed / "relay" / "guide" / "math" / "index.html"
    page, killed = tmp_path / "page.html", tmp_path / "killed.txt"
    pipe.rename(page)
    os.mkfifo(pipe)
    feeder = subprocess.Popen([sys.executable, "-c", PIPE_FEEDER, str(pipe), str(page),
                               str(killed)])
    try:
        result = run_ray_command([str(disturbed / name) for name in names],
                                 tmp_path / "disturbed-out", "--records", "jsonl")
    finally:
        feeder.kill()
        feeder.wait(timeout=10)
    assert result.exit_code == 0, result.output
    assert len(killed.read_text().split()) == 1
    expected = folder_files(tmp_path / "calm-out")
    got = folder_files(tmp_path / "disturbed-out")
    del expected["state.json"], got["state.json"]
    assert got == expected
    ids = [json.loads(line)["id"] for name in names for line in
           got[f"records/{name}.jsonl"].decode().splitlines()]
    assert len(ids) == len(set(ids)) > 0


@pytest.mark.slow
def test_the_vectors_of_the_records_are_those_mdchunk_makes_of_their_embed_text(
        local_ray: None, bare_site: Path) -> None:
    """By the default model (WordLlama), in a pool of one actor."""
    import numpy

    from mdchunk.ray.embedding import embedded
    from mdchunk.search.embedders import load_embedder

    rows = embedded(site_records([bare_site])).take_all()
    texts = [json.loads(row["record"])["embedText"] for row in rows]
    assert rows and all(texts)
    expected = load_embedder("wordllama").embed(texts)
    got = numpy.stack([row["vector"] for row in rows])
    assert got.dtype == numpy.float32 and got.shape == expected.shape
    numpy.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)


@pytest.mark.slow
def test_the_nodejs_docs_have_the_outputs_of_mdchunk_site(
        local_ray: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large real site (the first pages of the Node.js API docs, MkDocs' theme): its folder
    of site-level outputs is what `mdchunk site` writes, byte for byte."""
    from tests.corpus import nodejs_site

    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    config = nodejs_site(tmp_path / "project", plugins=["search"], pages=12)
    if config is None:
        pytest.skip("the Node.js API docs are not installed (apt-get install nodejs-doc)")
    site = build_mkdocs(config)
    write_site_outputs([RaySite(site, prefix="")], build_settings({}, SiteFacts()),
                       tmp_path / "out")
    written = mdchunk_site(site)
    assert len([path for path in written if path.endswith(".html.md")]) == 13
    assert folder_files(tmp_path / "out" / "site") == written
