"""A live status line: one line at the bottom of a terminal that rich redraws a few times a
second, below the lines the command prints. It is shown only on a terminal: in a pipe or a
file there is no line to redraw, and a command prints plain lines instead.

``maai run`` and ``maai resume`` feed it from a ``runtime.live_status.LiveStatus``; the study
runner feeds it its progress line. Anything may set its text (``render`` is asked each
time it is drawn)."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console
from rich.live import Live
from rich.text import Text

REFRESHES_PER_SECOND = 4
FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"  # a spinner: the line moves even while nothing else does


class StatusLine:
    """``with StatusLine(console, render):`` shows ``render()`` as a live line while the
    block runs, and takes it away at the end (``transient``): what stays on the screen is
    what the command printed, each line once."""

    def __init__(self, console: Console, render: Callable[[], str], *, enabled: bool = True):
        self.console = console
        self.render = render
        self.shown = enabled and console.is_terminal
        self._live: Live | None = None

    def _renderable(self) -> Text:
        frame = FRAMES[int(time.monotonic() * 10) % len(FRAMES)]
        # One line however long the text: cut with an ellipsis at the terminal's width.
        return Text(f"{frame} {self.render()}", no_wrap=True, overflow="ellipsis")

    def start(self) -> None:
        """Show the line (on a terminal) until :meth:`stop`."""
        if self.shown and self._live is None:
            self._live = Live(
                console=self.console,
                get_renderable=self._renderable,
                refresh_per_second=REFRESHES_PER_SECOND,
                transient=True,
            )
            self._live.start(refresh=True)

    def refresh(self) -> None:
        """Draw the line now, between the few redraws a second (a change the reader should
        see at once, not only if a redraw happens to fall while it lasts)."""
        if self._live is not None:
            self._live.refresh()

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def __enter__(self) -> StatusLine:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
