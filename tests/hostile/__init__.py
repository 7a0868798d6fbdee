"""Issue 7: hostile pages, fuzzing, crash safety, untrusted content, bad config, determinism."""
