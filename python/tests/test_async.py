"""AsyncBeckon: the same calls and rules as Beckon, awaited."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import TypeVar

import httpx
import pytest

from beckon import AsyncBeckon, AsyncQuestion, NotFoundError, UnauthorizedError
from conftest import YES_NO, Person, Server
from proxy import PASS, Fault, FaultyProxy

T = TypeVar("T")


def run(server: Server, scenario: Callable[[AsyncBeckon], Awaitable[T]], url: str | None = None) -> T:
    async def main() -> T:
        async with AsyncBeckon(url or server.url, server.agent_token, retry_delay=0.01) as client:
            return await scenario(client)

    return asyncio.run(main())


async def answer_later(server: Server, item_id: str, values: dict[str, object], delay: float) -> None:
    await asyncio.sleep(delay)
    async with httpx.AsyncClient(base_url=server.url) as http:
        response = await http.post(
            f"/api/items/{item_id}/answer",
            json={"values": values},
            headers={"authorization": f"Bearer {server.person_token}"},
        )
        assert response.status_code == 200, response.text


def test_ask_and_wait_for_a_persons_answer(server: Server, person: Person) -> None:
    async def scenario(client: AsyncBeckon) -> None:
        question = await client.ask("Async deploy?", form=YES_NO)
        assert isinstance(question, AsyncQuestion) and question.status == "open"
        answering = asyncio.create_task(answer_later(server, question.id, {"ok": True}, 0.3))
        outcome = await question.wait(timeout=20, poll_interval=600)
        await answering
        assert (outcome.status, outcome.values) == ("answered", {"ok": True})
        assert outcome.answered_by is not None and outcome.answered_by.id == person.user_id

        unanswered = await client.ask("Async, nobody", form=YES_NO)
        assert (await unanswered.wait(timeout=0.3)).status == "timeout"
        await client.dismiss(unanswered.id)
        assert (await client.wait(unanswered.id, timeout=20)).status == "dismissed"

    run(server, scenario)


def test_notify_get_and_list_pages(server: Server, person: Person) -> None:
    channel = person.channel()

    async def scenario(client: AsyncBeckon) -> None:
        created = [(await client.notify(f"Async {n}", channel=channel)).id for n in range(3)]
        assert (await client.get(created[0])).title == "Async 0"
        page = await client.list(channel=channel, limit=2)
        assert len(page.items) == 2 and page.next_cursor
        every = [item.id async for item in client.iter_items(channel=channel, limit=2)]
        assert sorted(every) == sorted(created)
        with pytest.raises(NotFoundError):
            await client.get(str(uuid.uuid4()))

    run(server, scenario)


def test_events_resume_after_the_last_one_seen(server: Server, person: Person) -> None:
    title = f"Async stream {uuid.uuid4()}"

    proxy = FaultyProxy(server.url, lambda method, path, n: PASS)

    async def scenario(client: AsyncBeckon) -> None:
        async def ask_later() -> None:
            # Once the server has answered the stream (it subscribes it first): no event missed.
            await asyncio.to_thread(proxy.wait_for, lambda p: p.streams_opened >= 1)
            await client.ask(title, form=YES_NO)

        asking = asyncio.create_task(ask_later())
        created = None
        async for event in client.events():
            if event.item and event.item.title == title:
                created = event
                break
        await asking
        assert created and created.item and created.type == "item.created"
        person.answer(created.item.id, {"ok": True})
        async for event in client.events(last_event_id=created.id):
            if event.item and event.item.id == created.item.id:
                assert (event.type, event.item.response) == ("item.answered", {"ok": True})
                break

    with proxy:
        run(server, scenario, proxy.url)


def test_retries_and_errors(server: Server) -> None:
    unavailable = Fault("status", 503, {"retry-after": "1"}, '{"error":"database unavailable"}')
    decide = lambda method, path, n: unavailable if method == "POST" and n == 0 else PASS  # noqa: E731

    async def scenario(client: AsyncBeckon) -> str:
        return (await client.notify("Async, after a 503")).id

    with FaultyProxy(server.url, decide) as proxy:
        item_id = run(server, scenario, proxy.url)
        attempts = proxy.seen("POST", "/api/items")
        assert len(attempts) == 2 and attempts[1].at - attempts[0].at >= 1.0
        assert attempts[0].headers["idempotency-key"] == attempts[1].headers["idempotency-key"]
    assert uuid.UUID(item_id)

    async def refused() -> None:
        async with AsyncBeckon(server.url, "not-a-key") as client:
            with pytest.raises(UnauthorizedError):
                await client.me()
            with pytest.raises(UnauthorizedError):
                async for _ in client.events():
                    pass

    asyncio.run(refused())
