"""What the `mdchunk` command does with an index already written: describe it (`stats.py`),
check it (`validate.py`), compare two (`diff.py`) and keep a Chroma collection equal to it
(`chroma.py`). Each works on the records as read from disk, not on a build."""
