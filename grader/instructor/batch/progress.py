"""The batch's progress on the terminal: done / failed / remaining and an ETA."""

from __future__ import annotations

import time


class Progress:
    """A rich progress bar with done / failed / remaining and an ETA (nothing when quiet)."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.total, self.done, self.failed = total, 0, 0
        self.bar = None
        self.last = 0.0
        if quiet or total == 0:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        self.bar = RichProgress(
            TextColumn("[bold]grading / 채점"), BarColumn(), MofNCompleteColumn(),
            TextColumn("done {task.fields[ok]} · failed {task.fields[bad]} · remaining {task.fields[left]}"),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            auto_refresh=False)  # no refresh thread: the batch forks, and must stay single-threaded
        self.task = self.bar.add_task("batch", total=total, ok=0, bad=0, left=total)
        self.bar.start()

    def advance(self, marker: dict) -> None:
        self.done += 1
        if marker["status"] != "graded":
            self.failed += 1
        if self.bar is not None:
            if marker["status"] != "graded":
                from rich.markup import escape

                self.bar.console.print(f"[yellow]{escape(marker['name'])}: {marker['status']}[/] "
                                       f"{escape(marker['reason'][:200])}")
            self.bar.update(self.task, advance=1, ok=self.done - self.failed, bad=self.failed,
                            left=self.total - self.done)
            self.bar.refresh()

    def refresh(self) -> None:
        now = time.monotonic()
        if self.bar is not None and now - self.last >= 0.5:
            self.last = now
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
