"""Waiting for a question's outcome, without I/O (the rules of sdk/src/wait.ts): follow the
event stream, read the item once after every (re)connection so an answer given before the
stream opened is seen, and read it every ``poll_interval`` while the stream is down."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

from .errors import BeckonError, InvalidRequestError, NotFoundError, PermissionDeniedError, UnauthorizedError
from .models import Actor, AnsweredVia, Item
from ._stream import Signal

OutcomeStatus = Literal["answered", "dismissed", "expired", "withdrawn", "timeout"]


@dataclass(frozen=True)
class Outcome:
    """How a question ended. ``timeout``: nobody decided within the wait (``item`` is the last
    seen). ``answered_by`` is who answered or dismissed (type ``policy`` when the item's timeout
    policy decided at the deadline: then ``by_policy``); ``answered_via`` where a person answered
    (``email``, ``slack``, ``push``; None for the API and the dashboard)."""

    status: OutcomeStatus
    item: Item
    values: dict[str, Any] | None
    answered_by: Actor | None
    answered_via: AnsweredVia | None
    by_policy: bool

    @property
    def answered(self) -> bool:
        return self.status == "answered"


def outcome_of(item: Item) -> Outcome | None:
    """The outcome an item's state already shows, or None while it waits. An item archived after
    its answer counts as answered; one archived unanswered may still be unarchived, so it waits."""
    by = item.answered_by
    by_policy = by is not None and by.type == "policy"
    if item.status == "answered" or (item.status == "archived" and item.response is not None):
        return Outcome("answered", item, item.response, by, item.answered_via, by_policy)
    if item.status in ("dismissed", "expired", "withdrawn"):
        return Outcome(item.status, item, None, by, item.answered_via, by_policy)  # type: ignore[arg-type]
    return None


def is_final(error: BeckonError) -> bool:
    """Errors of reading the item that no later read will fix."""
    return isinstance(error, (UnauthorizedError, PermissionDeniedError, NotFoundError, InvalidRequestError))


POLL = "poll"


class Waiter:
    """The state of one wait. The driver feeds it stream signals, wake-ups and reads; each step
    answers with the outcome, ``POLL`` (read the item now) or None (keep waiting)."""

    def __init__(self, initial: Item, timeout: float | None, poll_interval: float) -> None:
        self.latest = initial
        self._poll_interval = poll_interval
        now = time.monotonic()
        self._deadline = None if timeout is None else now + timeout
        self._next_poll = now + poll_interval
        self._stream_up = False

    def seconds_to_wake(self) -> float:
        now = time.monotonic()
        wake = self._next_poll if self._deadline is None else min(self._next_poll, self._deadline)
        return max(0.0, wake - now)

    def see(self, item: Item) -> Outcome | None:
        if item.id != self.latest.id or item.updated_at < self.latest.updated_at:
            return None
        self.latest = item
        return outcome_of(item)

    def on_signal(self, signal: Signal | BaseException | None) -> Outcome | str | None:
        """A stream signal, the stream's end (an exception), or None: the wake-up time came."""
        if signal is None:
            now = time.monotonic()
            if self._deadline is not None and now >= self._deadline:
                return Outcome("timeout", self.latest, None, None, None, False)
            if now >= self._next_poll:
                self._next_poll = now + self._poll_interval
                return None if self._stream_up else POLL
            return None
        if isinstance(signal, BaseException):
            # The stream refuses this token: polling says whether the item can be read at all.
            self._stream_up = False
            if isinstance(signal, UnauthorizedError) or not isinstance(signal, BeckonError):
                raise signal
            return None
        if signal.kind == "open":
            self._stream_up = True
            return POLL
        if signal.kind == "down":
            self._stream_up = False
            return None
        if signal.kind == "reset":
            return POLL
        return self.see(signal.event.item) if signal.event and signal.event.item else None

    def on_read(self, result: Item | BeckonError) -> Outcome | None:
        if isinstance(result, Item):
            return self.see(result)
        if is_final(result):
            raise result
        return None  # transient: the next read or event will do
