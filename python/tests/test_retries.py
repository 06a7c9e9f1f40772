"""Retry rules against a misbehaving proxy in front of the real server: 429 and 503 wait as
Retry-After says; reads and keyed creates survive lost answers; other actions never repeat."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from beckon import Beckon, NetworkError, RateLimitError, ServerError
from conftest import YES_NO, Person, Server
from proxy import PASS, Decide, Fault, FaultyProxy


def once(method: str, path_end: str, fault: Fault) -> Decide:
    """``fault`` for the first request of that method whose path ends so; the rest pass."""
    return lambda m, path, n: fault if m == method and path.endswith(path_end) and n == 0 else PASS


@contextmanager
def client_through(
    server: Server, decide: Decide, retry_delay: float = 0.3
) -> Iterator[tuple[FaultyProxy, Beckon]]:
    with FaultyProxy(server.url, decide) as proxy, Beckon(
        proxy.url, server.agent_token, retry_delay=retry_delay
    ) as client:
        yield proxy, client


def test_a_503_with_retry_after_is_retried_after_that_long(beckon: Beckon, server: Server) -> None:
    item = beckon.notify("Read me")
    unavailable = Fault("status", 503, {"retry-after": "1"}, '{"error":"database unavailable"}')
    with client_through(server, once("GET", item.id, unavailable), retry_delay=0.01) as (proxy, client):
        assert client.get(item.id).id == item.id
        first, second = proxy.seen("GET", f"/api/items/{item.id}")
        assert second.at - first.at >= 1.0


def test_a_429_is_retried_even_for_an_action(beckon: Beckon, server: Server) -> None:
    asked = beckon.ask("Dismiss after the limit", form=YES_NO)
    limited = Fault("status", 429, {"retry-after": "1"}, '{"error":"rate limited"}')
    with client_through(server, once("POST", "/dismiss", limited), retry_delay=0.01) as (proxy, client):
        assert client.dismiss(asked.id).status == "dismissed"
        assert len(proxy.seen("POST", f"/api/items/{asked.id}/dismiss")) == 2


def test_a_long_retry_after_raises_at_once(server: Server) -> None:
    limited = Fault("status", 429, {"retry-after": "60"}, '{"error":"rate limited"}')
    with client_through(server, once("GET", "/api/items", limited)) as (proxy, client):
        with pytest.raises(RateLimitError) as caught:
            client.list()
        assert (caught.value.retry_after_seconds, caught.value.body) == (60, {"error": "rate limited"})
        assert len(proxy.seen("GET", "/api/items")) == 1


@pytest.mark.parametrize("lost", [Fault("status-after", 503), Fault("drop-after")], ids=["503", "dropped"])
def test_a_create_whose_answer_is_lost_is_sent_again_with_the_same_key(
    server: Server, person: Person, lost: Fault
) -> None:
    channel = person.channel()
    with client_through(server, once("POST", "/api/items", lost), retry_delay=0.01) as (proxy, client):
        item = client.notify("Exactly once", channel=channel)
        attempts = proxy.seen("POST", "/api/items")
        assert len(attempts) == 2
        keys = {attempt.headers.get("idempotency-key") for attempt in attempts}
        assert len(keys) == 1 and None not in keys
    with Beckon(server.url, server.agent_token) as direct:
        assert [found.id for found in direct.list(channel=channel).items] == [item.id]


def test_an_action_whose_answer_is_lost_is_not_repeated(beckon: Beckon, server: Server) -> None:
    asked = beckon.ask("Answer lost", form=YES_NO)
    with client_through(server, once("POST", "/dismiss", Fault("drop-after")), retry_delay=0.01) as (
        proxy,
        client,
    ):
        with pytest.raises(NetworkError):
            client.dismiss(asked.id)
        assert len(proxy.seen("POST", f"/api/items/{asked.id}/dismiss")) == 1
    assert beckon.get(asked.id).status == "dismissed"  # the server did it once


def test_a_proxys_error_page_keeps_its_status(beckon: Beckon, server: Server) -> None:
    item = beckon.notify("Behind a proxy")
    bad_gateway = Fault("status", 502, {"content-type": "text/html"}, "<h1>502 Bad Gateway</h1>")
    with client_through(server, once("GET", item.id, bad_gateway), retry_delay=0.01) as (proxy, client):
        assert client.get(item.id).id == item.id  # a read: retried
    always = lambda m, path, n: bad_gateway if path.endswith("/withdraw") else PASS  # noqa: E731
    with client_through(server, always, retry_delay=0.01) as (proxy, client):
        with pytest.raises(ServerError) as caught:
            client.withdraw(item.id)  # an action: not retried
        assert (caught.value.status, caught.value.error) == (502, "<h1>502 Bad Gateway</h1>")
        assert len(proxy.seen("POST", f"/api/items/{item.id}/withdraw")) == 1
