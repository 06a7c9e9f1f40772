"""The synchronous client."""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any, Unpack

import httpx

from . import _calls
from ._calls import Call, Settings
from ._stream import STREAM_TIMEOUT, Scope, Signal, StreamState
from ._wait import POLL, Outcome, Waiter, outcome_of
from .errors import BeckonError
from .models import Form, Identity, Item, ItemFields, ItemPage, ListFilters, StreamEvent


class Beckon:
    """A Beckon client: ``Beckon(base_url, token)``; both default to ``BECKON_URL`` and
    ``BECKON_TOKEN``. ``base_url`` is the server's origin (no ``/api``); ``token`` an agent's API
    key, or a person's session or OAuth token. Reads and creates are retried ``retries`` times on
    transient failures (creates with one Idempotency-Key for all their attempts); every call
    retries 429 and 503, waiting as ``Retry-After`` says. ``transport``: an httpx transport
    (proxies, tests)."""

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        retries: int = 3,
        retry_delay: float = 0.3,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._settings = Settings.resolve(base_url, token, retries, retry_delay, timeout)
        self._http = httpx.Client(transport=transport, **self._settings.client_options())

    def __enter__(self) -> Beckon:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _send(self, call: Call) -> Any:
        attempt = 0
        while True:
            try:
                return _calls.read(self._http.request(call.method, call.path, **call.request_options()))
            except httpx.TransportError as exc:
                error: BeckonError = _calls.network_error(exc)
            except BeckonError as exc:
                error = exc
            delay = _calls.retry_delay(error, attempt, call.safe, self._settings)
            if delay is None:
                raise error
            time.sleep(delay)
            attempt += 1

    def ask(
        self, title: str, *, form: Form, idempotency_key: str | None = None, **fields: Unpack[ItemFields]
    ) -> Question:
        """Creates a question (an item with a form); ``.wait()`` on it returns the outcome."""
        data = self._send(_calls.create_item(title, {**fields, "form": form}, idempotency_key))
        return Question.of(Item.from_dict(data), self)

    def notify(self, title: str, *, idempotency_key: str | None = None, **fields: Unpack[ItemFields]) -> Item:
        """Creates a notification: an item without a form, for people to see."""
        return Item.from_dict(self._send(_calls.create_item(title, fields, idempotency_key)))

    def get(self, item_id: str) -> Item:
        return Item.from_dict(self._send(_calls.get_item(item_id)))

    def list(self, **filters: Unpack[ListFilters]) -> ItemPage:
        """One page of items, newest first; pass ``cursor=page.next_cursor`` for the next."""
        return ItemPage.from_dict(self._send(_calls.list_items(filters)))

    def iter_items(self, **filters: Unpack[ListFilters]) -> Generator[Item, None, None]:
        """Every item matching ``filters``, page after page."""
        while True:
            page = self.list(**filters)
            yield from page.items
            if not page.next_cursor:
                return
            filters["cursor"] = page.next_cursor

    def answer(self, item_id: str, values: dict[str, Any]) -> Item:
        """Answers an item's form (a person's token, or a key with items.write)."""
        return Item.from_dict(self._send(_calls.act_on_item(item_id, "answer", {"values": values})))

    def dismiss(self, item_id: str) -> Item:
        return Item.from_dict(self._send(_calls.act_on_item(item_id, "dismiss")))

    def withdraw(self, item_id: str) -> Item:
        """Takes a question back: nobody needs to answer it any more."""
        return Item.from_dict(self._send(_calls.act_on_item(item_id, "withdraw")))

    def me(self) -> Identity:
        """Who the token is (a cheap check of the token)."""
        return Identity.from_dict(self._send(Call("query", "GET", "/api/me")))

    def wait(self, item: str | Item, *, timeout: float | None = None, poll_interval: float = 2.0) -> Outcome:
        """Waits for the outcome of any item the token may read (seconds; None: no limit)."""
        initial = item if isinstance(item, Item) else self.get(item)
        return self._wait(initial, timeout, poll_interval, "org")

    def _read(self, item_id: str) -> Item | BeckonError:
        try:
            return self.get(item_id)
        except BeckonError as error:
            return error

    def _wait(
        self, initial: Item, timeout: float | None, poll_interval: float, scope: Scope | None
    ) -> Outcome:
        done = outcome_of(initial)
        if done:
            return done
        waiter = Waiter(initial, timeout, poll_interval)
        signals: queue.Queue[Signal | BaseException] = queue.Queue()
        stop = threading.Event()
        threading.Thread(target=self._follow, args=(scope, signals, stop), daemon=True).start()
        try:
            while True:
                try:
                    signal: Signal | BaseException | None = signals.get(timeout=waiter.seconds_to_wake())
                except queue.Empty:
                    signal = None
                step = waiter.on_signal(signal)
                while step == POLL:
                    step = waiter.on_read(self._read(initial.id))
                if isinstance(step, Outcome):
                    return step
        finally:
            stop.set()

    def _follow(
        self, scope: Scope | None, signals: queue.Queue[Signal | BaseException], stop: threading.Event
    ) -> None:
        """A wait's stream, read on its own thread; ends at the first signal after ``stop``."""
        try:
            for signal in self._stream(scope, None, stop):
                if stop.is_set():
                    return
                signals.put(signal)
        except BaseException as error:  # handed to the waiting thread, which decides
            signals.put(error)

    def events(
        self,
        *,
        scope: Scope | None = None,
        last_event_id: str | None = None,
        on_reset: Callable[[str], None] | None = None,
    ) -> Generator[StreamEvent, None, None]:
        """The agent event stream, reconnecting on its own with ``Last-Event-ID`` (so nothing is
        lost or repeated) until you leave the loop. ``scope``: ``agent`` (an API key's default:
        the items its agent created) or ``org``. ``last_event_id``: resume after that event.
        ``on_reset(reason)``: the server could not resume (events may have been missed: list the
        items again). Raises on 400, 401, 403; ``close()`` ends the connection."""
        for signal in self._stream(scope, last_event_id):
            if signal.kind == "event" and signal.event:
                yield signal.event
            elif signal.kind == "reset" and on_reset:
                on_reset(signal.reason or "")

    def _stream(
        self, scope: Scope | None, last_event_id: str | None, stop: threading.Event | None = None
    ) -> Iterator[Signal]:
        state = StreamState(scope, last_event_id)

        def pause(seconds: float) -> None:
            if stop:
                stop.wait(seconds)
            else:
                time.sleep(seconds)

        while not (stop and stop.is_set()):
            try:
                with self._http.stream(
                    "GET", "/mcp/sse", headers=state.headers(), params=state.params(), timeout=STREAM_TIMEOUT
                ) as response:
                    if not response.is_success:
                        response.read()
                        raise _calls.error_of(response)
                    yield state.opened()
                    for chunk in response.iter_text():
                        yield from state.feed(chunk)
                yield Signal("down")
            except httpx.TransportError as exc:
                yield state.failed(_calls.network_error(exc))
            except BeckonError as exc:
                yield state.failed(exc)
            pause(state.next_delay())


@dataclasses.dataclass
class Question(Item):
    """An item just asked; ``wait()`` returns its outcome."""

    _beckon: Beckon | None = dataclasses.field(default=None, repr=False, compare=False, kw_only=True)

    @classmethod
    def of(cls, item: Item, beckon: Beckon) -> Question:
        values = {field.name: getattr(item, field.name) for field in dataclasses.fields(Item)}
        return cls(**values, _beckon=beckon)

    def wait(self, *, timeout: float | None = None, poll_interval: float = 2.0) -> Outcome:
        """Waits for a person (or the item's timeout policy) to decide, at most ``timeout``
        seconds (then status ``timeout``); None waits until decided."""
        assert self._beckon is not None, "a Question comes from Beckon.ask()"
        return self._beckon._wait(self, timeout, poll_interval, None)
