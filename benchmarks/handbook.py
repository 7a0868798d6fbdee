"""A small MkDocs site like those the tests build: the handbook of Tern, a fictional task queue.

Seven pages whose sentences link to sections of the other pages, as a site's authors do; the
retrieval benchmark builds it with the plugin and asks those sentences as queries. It is small
on purpose: it shows how the chunkers behave on short pages of a few sections each, where the
Node.js docs show long reference pages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

PAGES = {
    "index.md": """\
        # Tern

        Tern runs background tasks for Python web applications. A task is a function that a
        web request hands to a queue instead of running it while the user waits.

        ## How it fits together

        Producers put tasks on a queue in a broker; workers take them off and run them. Start
        with [installing the broker and the worker](install.md#installing-tern), then read how
        [queues are declared](configuration.md#queues) before you write your first task.

        ## Where to go next

        When a task fails, Tern tries it again according to its
        [retry policy](retries.md#retry-policy). Operators watch a running deployment through
        the [metrics endpoint](monitoring.md#metrics).
        """,
    "install.md": """\
        # Installation

        ## Installing Tern

        Install the package with pip, `pip install tern`, in the environment of your
        application. Tern needs Python 3.10 or newer and a broker.

        ## Choosing a broker

        Tern talks to Redis and to RabbitMQ. Redis is simpler to run; RabbitMQ keeps messages
        on disk and survives restarts without losing tasks. The broker address goes in the
        [`broker_url` setting](configuration.md#connection-settings) of the configuration file.

        ## Checking the installation

        Run `tern doctor`: it connects to the broker, declares a test queue and removes it
        again. The [command-line reference](cli.md#tern-doctor) lists its options.
        """,
    "configuration.md": """\
        # Configuration

        Tern reads `tern.toml` from the working directory, or the file named by `TERN_CONFIG`.

        ## Connection settings

        | setting | default | meaning |
        |---|---|---|
        | `broker_url` | `redis://localhost:6379/0` | Where the broker listens. |
        | `connect_timeout` | `5` | Seconds to wait for the broker at start-up. |
        | `heartbeat` | `30` | Seconds between keep-alive messages. |

        A worker that cannot reach the broker within `connect_timeout` exits with status 3, so
        that a supervisor restarts it; see [worker supervision](workers.md#supervision).

        ## Queues

        Each queue has a name, a priority and a concurrency limit. Tasks of a queue with a
        higher priority are taken first when several queues have work waiting.

        ```toml
        [queues.mail]
        priority = 10
        concurrency = 4
        ```

        A queue without a concurrency limit lets every worker process run its tasks, which can
        starve the other queues; the [prefetch count](workers.md#prefetch) bounds how many
        tasks one process holds at a time.

        ## Serialization

        Arguments are serialized as JSON by default. Objects JSON cannot represent need the
        `pickle` serializer, which must never be enabled on a broker that untrusted clients can
        write to.
        """,
    "workers.md": """\
        # Workers

        ## Starting workers

        `tern worker --queues mail,reports --processes 4` starts four processes that take
        tasks from two queues. The queues must be declared in the configuration; an undeclared
        queue stops the worker at start-up with a message naming it, as described under
        [queues](configuration.md#queues).

        ## Prefetch

        Each process reserves a few tasks ahead of the one it runs, so that it never waits on
        the broker between two tasks. The prefetch count is 4 by default. Long tasks should use
        a prefetch count of 1: a reserved task waits until the process is free, and it is only
        handed to another worker when the reserving one dies.

        ## Supervision

        Run workers under systemd or another supervisor that restarts a process that exits.
        On `SIGTERM` a worker finishes the tasks it runs and returns the reserved ones to the
        queue; on a second `SIGTERM` it stops at once, and its running tasks are retried as
        the [acknowledgement rules](retries.md#acknowledgements) say.
        """,
    "retries.md": """\
        # Retries

        ## Retry policy

        A task that raises an exception is tried again, up to `max_retries` times (3 by
        default), after a delay that doubles each time from `retry_delay` seconds. A task that
        raises `tern.Reject` is never retried.

        ## Acknowledgements

        A worker acknowledges a task to the broker when the task returns, not when it starts:
        a task whose worker dies is delivered again to another worker. Tasks must therefore be
        idempotent: running one twice must leave the same result as running it once.

        ## Dead letters

        A task that has used up its retries goes to the `dead` queue with its last exception.
        The [`tern requeue` command](cli.md#tern-requeue) puts such tasks back on their queue
        once the cause is fixed.
        """,
    "monitoring.md": """\
        # Monitoring

        ## Metrics

        Each worker serves Prometheus metrics on port 9540: tasks started, succeeded, failed
        and retried per queue, and the time each task took. Tasks that fail over and over show
        up as retries long before they reach the [dead-letter queue](retries.md#dead-letters).

        ## Alerts

        Alert when the oldest task of a queue has waited longer than its service level: the
        queue lacks workers, or a worker holds tasks it cannot run, which a lower
        [prefetch count](workers.md#prefetch) avoids.
        """,
    "cli.md": """\
        # Command line

        ## tern worker

        Starts worker processes. Options: `--queues`, `--processes`, `--prefetch`. Workers
        read their [connection settings](configuration.md#connection-settings) from the
        configuration file.

        ## tern doctor

        Checks that the broker is reachable and that every declared queue can be created.

        ## tern requeue

        Moves tasks from the `dead` queue back to the queue they came from. With `--queue NAME`
        only the tasks of that queue are moved; with `--dry-run` they are listed, not moved.
        """,
}


def handbook_site(target: Path, plugin: dict[str, Any] | None = None) -> Path:
    """Write the handbook's MkDocs project under `target`; return its mkdocs.yml."""
    import textwrap

    docs = target / "docs"
    for name, text in PAGES.items():
        path = docs / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    config = {
        "site_name": "Tern handbook",
        "site_url": "https://tern.example/",
        "docs_dir": "docs",
        "site_dir": "site",
        "markdown_extensions": [{"toc": {"permalink": True}}, "tables", "admonition",
                                "attr_list", "md_in_html", "footnotes", "def_list"],
        "plugins": [{"mdchunk": plugin or {}}],
    }
    config_file = target / "mkdocs.yml"
    config_file.write_text(yaml.safe_dump(config), encoding="utf-8")
    return config_file
