"""`mdchunk mcp`: a built site's chunk index served to AI assistants over MCP.

An assistant (Claude Code, Cursor, any MCP client) reads the documentation through five tools,
all read-only:

- `search_docs(query, limit, max_tokens, version)`: the sections that best match the query,
  ranked as `mdchunk query` ranks (`mdchunk.search`), at most one result per section, each with
  the id of its parent section (`parentId`: one heading up, null at the top of a page) and its
  version.
- `read_section(id_or_url, max_tokens)`: one whole section, as the page's Markdown has it.
- `read_sections(ids_or_urls, max_tokens)`: several whole sections under one budget.
- `read_page(url, max_tokens)`: a page's Markdown.
- `list_sections(url)`: a page's outline.

A section is what the chunk records call a `url`: a page and an anchor (`guide/install/#linux`);
its chunks are the records sharing that url. Every id and url a tool returns (a chunk id
`doc:guide/install::ch1`, a page id `doc:guide/install`, a section or page url, an absolute url)
is accepted by every tool.

Budgets. `max_tokens` bounds the text a tool returns: the sum of the exact token counts (the
index's encoding, counted by `mdchunk.chunking.tokens.token_counter`) of the `text` fields of its
answer; urls, breadcrumbs and other fields are not counted. Text is only ever cut between chunks,
never inside one: a section is cut after its last chunk that fits, a page after its last section
that fits (after its last chunk that fits where not even the first section does), and search
results and `read_sections`' sections that do not fit what is left are left out whole and
named in `omitted`. A budget that cannot hold even the first chunk of the answer is refused with
an error that says the budget needed.

Arguments. A wrong JSON type (text for `limit`, a list for `id_or_url`) is a tool error of one
line naming the argument (`mdchunk.mcp.arguments`), as every other bad argument; a number sent
as text (`"5"`) is taken.

The index. The server answers from the SQLite/FTS5 index `chunks.sqlite`
(`mdchunk.outputs.sqlite`). A
site built with `formats: [native]` has only `chunks.jsonl`: the SQLite index is then made from
it, atomically, beside it; where the site folder cannot be written, in the user's cache folder
(`$XDG_CACHE_HOME/mdchunk/mcp`, or `--cache-dir`), under a name made of chunks.jsonl's path,
size and modification time (the file of an earlier version is removed). An existing
`chunks.sqlite` older than `chunks.jsonl` is used only when it holds the same records. When the
index files change (the site was built again), the next tool call loads them again.

Versions. Given the root of a tree of versions (mike's `versions.json`), the server loads
each version's index (`DocsTree`): `search_docs` reads the version it names (default: the one
aliased `latest`, else the newest), the other tools the version of the id (`doc:1.0/...`) or
absolute url they are given, else the default one.

Safety. The server reads the index it was given and, for a page of that index, the page's
Markdown file inside the site folder: nothing else. A url is looked up in the index, never
turned into a file path, so a url that is not a page of the index reads nothing; a url with a
`..` segment, a backslash or a scheme other than the site's own http(s) url (`file:`, `C:`) is
refused before any look-up; and a page's Markdown file whose real path (symbolic links followed)
leaves the site folder is not read (the page is then served from its chunk texts).
"""

from mdchunk.mcp.docs import Docs, DocsError
from mdchunk.mcp.index import DocsTree, IndexFiles, LiveDocs, load_docs, open_docs, prepare_index
from mdchunk.mcp.server import build_server, run_server, serve

__all__ = ["Docs", "DocsError", "DocsTree", "IndexFiles", "LiveDocs", "build_server",
           "load_docs", "open_docs", "prepare_index", "run_server", "serve"]
