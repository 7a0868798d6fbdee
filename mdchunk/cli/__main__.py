"""`python -m mdchunk.cli`: the `mdchunk` command."""

from mdchunk.cli import main

main()
