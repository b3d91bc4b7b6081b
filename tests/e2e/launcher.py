"""Starting the ``maai`` command line in child processes for the end-to-end tests.

Two ways, both real OS processes that a test can SIGKILL or SIGINT at any moment:

- ``real=True``: ``python -m maai ...``, exactly what a user runs (``maai/__main__.py`` calls
  the same ``cli.app.main`` as the ``maai`` console script). Importing the OpenAI Agents SDK
  costs a few seconds per process, so only some tests start the CLI this way.
- the default: a child forked from a multiprocessing *forkserver* that imported ``cli.app``
  once. The child runs ``cli.app.main()`` with the given arguments in a process of its own
  (its own SQLite connections, threads, event loop), with SIGINT and SIGTERM as a fresh
  interpreter has them; it only skips the import. This is what makes dozens of kill-and-
  resume cycles affordable.

The children's environment is hermetic: no API keys, no tracing export, no ``MAAI_DB``.
Their stdout and stderr go to one log file each.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# multiprocessing reads a child's exit code from its sentinel pipe once, and Process.start()
# polls every earlier child: two threads reading one sentinel leave one of them with "255".
# Every start and poll of a forked child goes through this lock.
_MP_LOCK = threading.RLock()
# "__main__": each child re-runs the parent's main script as ``__mp_main__`` (guarded by its
# ``if __name__ == "__main__"``); preloading it once makes that a matter of cached imports.
# ``runtime.executors`` and ``runtime.tracing`` bring the OpenAI Agents SDK, which the CLI
# imports only when a command may call a model.
PRELOAD = [
    "__main__",
    "maai.cli.app",
    "maai.runtime.executors",
    "maai.runtime.tracing",
    "tests.e2e.launcher",
]


def hermetic_env(base: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The environment for CLI children: keys and provider settings removed, tracing off;
    the test session's signing key kept (never the user's own)."""
    env = {
        k: v
        for k, v in base.items()
        if not k.endswith("_API_KEY")
        and (not k.startswith(("OPENAI_", "MAAI_")) or k == "MAAI_SIGNING_KEY")
        and k not in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy")
    }
    env["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "250"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _child_main(argv: list[str], log_path: str, env: dict[str, str], nice: int = 0) -> None:
    """Body of a forked child: ``maai ARGV`` with output to ``log_path``; exits with its code."""
    if nice:
        os.nice(nice)
    os.environ.clear()
    os.environ.update(env)
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    # As a fresh interpreter has them (the forkserver ignores SIGINT).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.argv = ["maai", *argv]
    code = 0
    try:
        from maai.cli.app import main

        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a closed stream has nothing to flush
                stream.flush()
    os._exit(code)


@dataclass
class CliProcess:
    """One ``maai`` child process."""

    argv: list[str]
    log: Path
    _proc: BaseProcess | subprocess.Popen[bytes]
    started_at: float = field(default_factory=time.monotonic)

    @property
    def pid(self) -> int:
        pid = self._proc.pid
        assert pid is not None
        return pid

    def poll(self) -> int | None:
        """The exit code, or None while running (-N: killed by signal N)."""
        if isinstance(self._proc, subprocess.Popen):
            return self._proc.poll()
        with _MP_LOCK:
            return self._proc.exitcode

    def _wait(self, timeout: float) -> int | None:
        if isinstance(self._proc, subprocess.Popen):
            try:
                return self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                return None
        deadline = time.monotonic() + timeout
        while (code := self.poll()) is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            # Readiness only (no read): safe beside another thread's poll.
            multiprocessing.connection.wait([self._proc.sentinel], min(remaining, 0.5))
        return code

    def wait(self, timeout: float = 120.0) -> int:
        """Wait for the exit code; on timeout kill the child and fail with its output."""
        code = self._wait(timeout)
        if code is not None:
            return code
        self.kill()
        raise AssertionError(
            f"maai {' '.join(self.argv)} did not finish within {timeout:g}s; output:\n"
            f"{self.output()}"
        )

    def send(self, sig: signal.Signals) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def kill(self) -> int:
        """SIGKILL (if still running) and reap; returns the exit code."""
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        code = self._wait(30)
        assert code is not None, f"child {self.pid} survived SIGKILL"
        return code

    def output(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def flat_output(self) -> str:
        """The output with all whitespace runs as single spaces (rich may wrap lines)."""
        return " ".join(self.output().split())


class Launcher:
    """Starts ``maai`` children; kills whatever is left running on ``close``."""

    def __init__(self, logs: Path, env: Mapping[str, str] | None = None) -> None:
        self.logs = logs
        self.env = dict(env) if env is not None else hermetic_env()
        self._ctx: ForkServerContext | None = None
        self._children: list[CliProcess] = []
        self._lock = threading.Lock()
        self._count = 0

    def _context(self) -> ForkServerContext:
        if self._ctx is None:
            ctx = multiprocessing.get_context("forkserver")
            assert isinstance(ctx, ForkServerContext)
            ctx.set_forkserver_preload(PRELOAD)
            self._ctx = ctx
        return self._ctx

    def start(
        self,
        *args: str | Path,
        real: bool = False,
        env: Mapping[str, str] | None = None,
        nice: int = 0,
    ) -> CliProcess:
        """Start ``maai ARGS``; ``real``: as ``python -m maai`` in a fresh interpreter.
        ``nice`` (forked children only) lowers the child's CPU priority, so that a test
        polling it for the moment to kill it is not starved of CPU on a busy machine."""
        assert not (real and nice), "nice is for forked children"
        argv = [str(a) for a in args]
        child_env = {**self.env, **(env or {})}
        with self._lock:
            self._count += 1
            log = self.logs / f"maai-{self._count:03d}-{argv[0]}.log"
            proc: BaseProcess | subprocess.Popen[bytes]
            if real:
                with open(log, "wb") as sink:
                    proc = subprocess.Popen(
                        [sys.executable, "-m", "maai", *argv],
                        cwd=REPO,
                        env=child_env,
                        stdin=subprocess.DEVNULL,
                        stdout=sink,
                        stderr=subprocess.STDOUT,
                    )
            else:
                proc = self._context().Process(
                    target=_child_main, args=(argv, str(log), child_env, nice), daemon=False
                )
                with _MP_LOCK:
                    proc.start()
            child = CliProcess(argv, log, proc)
            self._children.append(child)
        return child

    def run(
        self,
        *args: str | Path,
        real: bool = False,
        timeout: float = 120.0,
        env: Mapping[str, str] | None = None,
    ) -> CliProcess:
        """Start ``maai ARGS`` and wait for it to exit."""
        child = self.start(*args, real=real, env=env)
        child.wait(timeout)
        return child

    def close(self) -> None:
        with self._lock:
            children, self._children = self._children, []
        for child in children:
            child.kill()
