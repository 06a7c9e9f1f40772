"""The agent event stream: live events, resuming with Last-Event-ID, reconnecting after a drop,
a resume the server cannot serve, and the Server-Sent Events decoder itself."""

from __future__ import annotations

import uuid
import threading
from collections.abc import Callable, Iterator

import pytest

from beckon import Beckon, StreamEvent, UnauthorizedError
from beckon._stream import SseDecoder, SseMessage
from conftest import YES_NO, Person, Server
from proxy import PASS, Fault, FaultyProxy


def of_item(events: Iterator[StreamEvent], item_id: str, count: int) -> list[StreamEvent]:
    """The next ``count`` events about one item (other tests' items may have events too)."""
    found: list[StreamEvent] = []
    for event in events:
        if event.item and event.item.id == item_id:
            found.append(event)
            if len(found) == count:
                return found
    raise AssertionError("the stream ended")


def once_streaming(proxy: FaultyProxy, action: Callable[[], object]) -> None:
    """Runs ``action`` on another thread once the server has answered the stream's connection
    (it subscribes the stream before answering, so no event of the action is missed)."""

    def run() -> None:
        proxy.wait_for(lambda p: p.streams_opened >= 1)
        action()

    threading.Thread(target=run, daemon=True).start()


def passing(server: Server) -> FaultyProxy:
    return FaultyProxy(server.url, lambda method, path, n: PASS)


def test_events_arrive_and_a_later_stream_resumes_after_the_last_one_seen(
    beckon: Beckon, person: Person, server: Server
) -> None:
    title = f"Watch me {uuid.uuid4()}"
    with passing(server) as proxy, Beckon(proxy.url, server.agent_token) as client:
        once_streaming(proxy, lambda: beckon.ask(title, form=YES_NO))
        stream = client.events()
        created = next(event for event in stream if event.item and event.item.title == title)
        stream.close()
    assert created.item and (created.type, created.item.status) == ("item.created", "open")
    assert uuid.UUID(created.id) and created.created_at

    # Given while nobody listened: the resumed stream replays it.
    person.answer(created.item.id, {"ok": True})
    resumed = beckon.events(last_event_id=created.id)
    (answered,) = of_item(resumed, created.item.id, 1)
    resumed.close()
    assert answered.type == "item.answered"
    assert answered.item and (answered.item.status, answered.item.response) == ("answered", {"ok": True})


def cut_first_stream(method: str, path: str, seen_before: int) -> Fault:
    return Fault("cut-stream") if path == "/mcp/sse" and seen_before == 0 else PASS


def test_the_stream_reconnects_with_last_event_id_after_a_drop(person: Person, server: Server) -> None:
    with FaultyProxy(server.url, cut_first_stream) as proxy, Beckon(proxy.url, server.agent_token) as client:
        first, second = client.ask("First", form=YES_NO), client.ask("Second", form=YES_NO)

        # The first answer is the first event: the connection drops right after it, and the
        # second answer is given while the client is away.
        def answer_both() -> None:
            proxy.wait_for(lambda p: p.streams_opened >= 1)
            person.answer(first.id, {"ok": True})
            proxy.wait_for(lambda p: p.streams_cut >= 1)
            person.answer(second.id, {"ok": False})

        threading.Thread(target=answer_both, daemon=True).start()
        stream = client.events()
        seen: list[StreamEvent] = []
        for event in stream:
            seen.append(event)
            if event.item and event.item.id == second.id:
                break
        stream.close()
        assert [(e.type, e.item and e.item.id) for e in seen] == [
            ("item.answered", first.id),
            ("item.answered", second.id),
        ]
        connections = proxy.seen("GET", "/mcp/sse")
        assert len(connections) == 2
        assert "last-event-id" not in connections[0].headers
        assert connections[1].headers["last-event-id"] == seen[0].id


def test_an_unknown_resume_point_is_reported_and_the_live_stream_follows(
    beckon: Beckon, server: Server
) -> None:
    resets: list[str] = []
    title = f"After the reset {uuid.uuid4()}"
    with passing(server) as proxy, Beckon(proxy.url, server.agent_token) as client:
        once_streaming(proxy, lambda: beckon.notify(title))
        stream = client.events(last_event_id=str(uuid.uuid4()), on_reset=resets.append)
        event = next(event for event in stream if event.item and event.item.title == title)
        stream.close()
    assert resets == ["unknown or expired Last-Event-ID"]
    assert event.type == "item.created"


def test_a_refused_token_ends_the_stream(server: Server) -> None:
    with Beckon(server.url, "not-a-key") as client, pytest.raises(UnauthorizedError):
        next(client.events())


def test_the_decoder_follows_the_sse_parsing_rules() -> None:
    decoder = SseDecoder()
    chunks = [
        ": keep-alive\r",
        '\nretry: 1500\r\nid: 1\r\nevent: item.created\r\ndata: {"a":\r',
        "\ndata: 1}\r\n\r\n",
        "data:x\n\n",
    ]
    messages = [message for chunk in chunks for message in decoder.feed(chunk)]
    assert messages == [
        SseMessage("1", "item.created", '{"a":\n1}'),
        SseMessage("1", "message", "x"),  # the id stays, the event name does not
    ]
    assert decoder.retry_ms == 1500
