"""Keyring calls with a bound on the wait.

A hung keyring call (a collection locked behind an unlock prompt nobody answers, a stuck
D-Bus service) cannot be stopped, so the caller stops waiting for it instead. Calls run one
at a time and in order in a daemon thread: the thread never keeps the process alive, and a
write that finishes after its caller gave up can never land after a later one.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")


class _Runnable(Protocol):
    def run(self) -> None: ...


class Job(Generic[T]):
    """One keyring call; an abandoned job that has not started never runs."""

    def __init__(self, call: Callable[[], T]) -> None:
        self.call = call
        self.done = threading.Event()
        self.error: BaseException | None = None
        self._result: list[T] = []
        self._lock = threading.Lock()
        self._started = False
        self._abandoned = False

    def run(self) -> None:
        with self._lock:
            if self._abandoned:
                return
            self._started = True
        try:
            self._result.append(self.call())
        except BaseException as exc:  # handed to the waiting caller
            self.error = exc
        finally:
            self.done.set()

    def result(self) -> T:
        """The call's value; raises what the call raised."""
        if self.error is not None:
            raise self.error
        return self._result[0]

    def abandon(self) -> bool:
        """Give up on this job; True when it is still running (and may finish later)."""
        with self._lock:
            self._abandoned = True
            return self._started and not self.done.is_set()


class KeyringWorker:
    """Runs jobs one at a time, in order, in a daemon thread started on demand."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Runnable] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def idle(self) -> bool:
        """No thread is running (every submitted job has run or was skipped)."""
        return self._thread is None

    def submit(self, job: _Runnable) -> None:
        with self._lock:
            self._jobs.put(job)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="mb-oauth-keyring", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    self._thread = None  # idle: the next submit starts a new thread
                    return
            job.run()

    def call(self, call: Callable[[], T], timeout: float) -> tuple[bool, Job[T]]:
        """Run ``call``, waiting at most ``timeout`` seconds: (finished, its job)."""
        job = Job(call)
        self.submit(job)
        if not job.done.wait(timeout) and (job.abandon() or not job.done.is_set()):
            return False, job
        return True, job
