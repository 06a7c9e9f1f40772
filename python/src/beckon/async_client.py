"""The asyncio client: the same calls as ``Beckon``, awaited."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, Unpack

import httpx

from . import _calls
from ._calls import Call, Settings
from ._stream import STREAM_TIMEOUT, Scope, Signal, StreamState
from ._wait import POLL, Outcome, Waiter, outcome_of
from .errors import BeckonError
from .models import Form, Identity, Item, ItemFields, ItemPage, ListFilters, StreamEvent


class AsyncBeckon:
    """``Beckon`` for asyncio (same arguments, same retry rules); ``async with`` closes it."""

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        retries: int = 3,
        retry_delay: float = 0.3,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._settings = Settings.resolve(base_url, token, retries, retry_delay, timeout)
        self._http = httpx.AsyncClient(transport=transport, **self._settings.client_options())

    async def __aenter__(self) -> AsyncBeckon:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _send(self, call: Call) -> Any:
        attempt = 0
        while True:
            try:
                response = await self._http.request(call.method, call.path, **call.request_options())
                return _calls.read(response)
            except httpx.TransportError as exc:
                error: BeckonError = _calls.network_error(exc)
            except BeckonError as exc:
                error = exc
            delay = _calls.retry_delay(error, attempt, call.safe, self._settings)
            if delay is None:
                raise error
            await asyncio.sleep(delay)
            attempt += 1

    async def ask(
        self, title: str, *, form: Form, idempotency_key: str | None = None, **fields: Unpack[ItemFields]
    ) -> AsyncQuestion:
        data = await self._send(_calls.create_item(title, {**fields, "form": form}, idempotency_key))
        return AsyncQuestion.of(Item.from_dict(data), self)

    async def notify(
        self, title: str, *, idempotency_key: str | None = None, **fields: Unpack[ItemFields]
    ) -> Item:
        return Item.from_dict(await self._send(_calls.create_item(title, fields, idempotency_key)))

    async def get(self, item_id: str) -> Item:
        return Item.from_dict(await self._send(_calls.get_item(item_id)))

    async def list(self, **filters: Unpack[ListFilters]) -> ItemPage:
        return ItemPage.from_dict(await self._send(_calls.list_items(filters)))

    async def iter_items(self, **filters: Unpack[ListFilters]) -> AsyncGenerator[Item, None]:
        while True:
            page = await self.list(**filters)
            for item in page.items:
                yield item
            if not page.next_cursor:
                return
            filters["cursor"] = page.next_cursor

    async def answer(self, item_id: str, values: dict[str, Any]) -> Item:
        return Item.from_dict(await self._send(_calls.act_on_item(item_id, "answer", {"values": values})))

    async def dismiss(self, item_id: str) -> Item:
        return Item.from_dict(await self._send(_calls.act_on_item(item_id, "dismiss")))

    async def withdraw(self, item_id: str) -> Item:
        return Item.from_dict(await self._send(_calls.act_on_item(item_id, "withdraw")))

    async def me(self) -> Identity:
        return Identity.from_dict(await self._send(Call("query", "GET", "/api/me")))

    async def wait(
        self, item: str | Item, *, timeout: float | None = None, poll_interval: float = 2.0
    ) -> Outcome:
        initial = item if isinstance(item, Item) else await self.get(item)
        return await self._wait(initial, timeout, poll_interval, "org")

    async def _read(self, item_id: str) -> Item | BeckonError:
        try:
            return await self.get(item_id)
        except BeckonError as error:
            return error

    async def _wait(
        self, initial: Item, timeout: float | None, poll_interval: float, scope: Scope | None
    ) -> Outcome:
        done = outcome_of(initial)
        if done:
            return done
        waiter = Waiter(initial, timeout, poll_interval)
        signals: asyncio.Queue[Signal | BaseException] = asyncio.Queue()

        async def follow() -> None:
            try:
                async for signal in self._stream(scope, None):
                    signals.put_nowait(signal)
            except Exception as error:  # handed to the wait, which decides
                signals.put_nowait(error)

        follower = asyncio.create_task(follow())
        try:
            while True:
                try:
                    signal: Signal | BaseException | None = await asyncio.wait_for(
                        signals.get(), waiter.seconds_to_wake()
                    )
                except asyncio.TimeoutError:
                    signal = None
                step = waiter.on_signal(signal)
                while step == POLL:
                    step = waiter.on_read(await self._read(initial.id))
                if isinstance(step, Outcome):
                    return step
        finally:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower

    async def events(
        self,
        *,
        scope: Scope | None = None,
        last_event_id: str | None = None,
        on_reset: Callable[[str], None] | None = None,
    ) -> AsyncGenerator[StreamEvent, None]:
        """See ``Beckon.events``: ``async for event in beckon.events(): ...``."""
        async for signal in self._stream(scope, last_event_id):
            if signal.kind == "event" and signal.event:
                yield signal.event
            elif signal.kind == "reset" and on_reset:
                on_reset(signal.reason or "")

    async def _stream(self, scope: Scope | None, last_event_id: str | None) -> AsyncIterator[Signal]:
        state = StreamState(scope, last_event_id)
        while True:
            try:
                async with self._http.stream(
                    "GET", "/mcp/sse", headers=state.headers(), params=state.params(), timeout=STREAM_TIMEOUT
                ) as response:
                    if not response.is_success:
                        await response.aread()
                        raise _calls.error_of(response)
                    yield state.opened()
                    async for chunk in response.aiter_text():
                        for signal in state.feed(chunk):
                            yield signal
                yield Signal("down")
            except httpx.TransportError as exc:
                yield state.failed(_calls.network_error(exc))
            except BeckonError as exc:
                yield state.failed(exc)
            await asyncio.sleep(state.next_delay())


@dataclasses.dataclass
class AsyncQuestion(Item):
    """An item just asked; ``await question.wait()`` returns its outcome."""

    _beckon: AsyncBeckon | None = dataclasses.field(default=None, repr=False, compare=False, kw_only=True)

    @classmethod
    def of(cls, item: Item, beckon: AsyncBeckon) -> AsyncQuestion:
        values = {field.name: getattr(item, field.name) for field in dataclasses.fields(Item)}
        return cls(**values, _beckon=beckon)

    async def wait(self, *, timeout: float | None = None, poll_interval: float = 2.0) -> Outcome:
        assert self._beckon is not None, "an AsyncQuestion comes from AsyncBeckon.ask()"
        return await self._beckon._wait(self, timeout, poll_interval, None)
