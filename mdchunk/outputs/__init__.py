"""What is written from the chunks: each page's records in every format (`pages`), the files and
folders they go to, atomically (`formats`, `writers`), the SQLite index, the chunk inspector, and
the agent outputs (`llms`, `llms_full`, `twins`, following the site's `outline`). The records
themselves are made by the pure functions of `mdchunk.outputs.profiles`."""
