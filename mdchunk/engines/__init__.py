"""The core's own front ends: pages read from a built site (`mdchunk site`) or rendered from
Markdown files (`mdchunk chunk`), handed to the build session as an engine hands them."""
