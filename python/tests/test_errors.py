"""Errors are exceptions carrying the server's answer: status, body, message, details."""

from __future__ import annotations

import socket
import uuid

import pytest

from beckon import (
    Beckon,
    BeckonError,
    ConflictError,
    InvalidRequestError,
    NetworkError,
    NotFoundError,
    RateLimitError,
    UnauthorizedError,
    ValidationError,
)
from conftest import YES_NO, Server


def test_an_unknown_token_is_unauthorized(server: Server) -> None:
    with Beckon(server.url, "not-a-key") as client, pytest.raises(UnauthorizedError) as caught:
        client.list()
    error = caught.value
    assert (error.status, error.error, error.body["error"]) == (401, "unauthorized", "unauthorized")
    # The body as sent: nothing besides the message (and a machine-readable code, if any).
    assert set(error.body) <= {"error", "code"} and error.details == {}
    assert error.code == error.body.get("code") == "unauthorized"
    assert isinstance(error, BeckonError) and str(error) == "401 unauthorized"


def test_an_unknown_id_and_another_organizations_item_are_not_found(beckon: Beckon, server: Server) -> None:
    with pytest.raises(NotFoundError) as caught:
        beckon.get(str(uuid.uuid4()))
    assert (caught.value.status, caught.value.error, caught.value.code) == (404, "not found", "not_found")

    mine = beckon.notify("Ours only")
    with Beckon(server.url, server.other_token) as outsider, pytest.raises(NotFoundError):
        outsider.get(mine.id)


def test_a_bad_request_carries_the_fields_at_fault(beckon: Beckon) -> None:
    bad_form = {"id": "f", "fields": [{"id": "ok", "type": "slider", "label": "How much?"}]}
    with pytest.raises(InvalidRequestError) as caught:
        beckon.ask("Broken", form=bad_form)  # type: ignore[arg-type]
    error = caught.value
    assert (error.status, error.error, error.code) == (400, "invalid request", "invalid_request")
    assert error.fields and all(path.startswith("form") for path in error.fields)
    assert error.details["fields"] == error.fields


def test_a_refused_answer_and_a_second_answer(beckon: Beckon, server: Server) -> None:
    asked = beckon.ask("Yes or no?", form=YES_NO)
    with Beckon(server.url, server.person_token) as person:
        with pytest.raises(ValidationError) as refused:
            person.answer(asked.id, {"ok": "maybe"})
        assert (refused.value.status, refused.value.error) == (422, "validation failed")
        assert refused.value.code == "validation_failed"
        assert list(refused.value.fields) == ["ok"]

        person.answer(asked.id, {"ok": True})
        with pytest.raises(ConflictError) as conflict:
            person.answer(asked.id, {"ok": False})
        assert (conflict.value.status, conflict.value.current_status) == (409, "answered")
        assert conflict.value.code == "invalid_status"


def test_a_rate_limited_call_says_when_to_come_back(server: Server) -> None:
    # The limited server allows 3 calls a minute (7 calls meet the limit even when they straddle
    # the end of a window); without retries the 429 surfaces at once.
    with Beckon(server.limited_url, server.limited_token, retries=0) as client:
        with pytest.raises(RateLimitError) as caught:
            for _ in range(7):
                client.list()
    error = caught.value
    assert (error.status, error.error, error.code) == (429, "rate limited", "rate_limited")
    assert error.retry_after_seconds is not None and 0 < error.retry_after_seconds <= 60


def test_no_server_is_a_network_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # Nothing listens on that port any more.
    with Beckon(f"http://127.0.0.1:{port}", "key", retries=1, retry_delay=0.01) as client:
        with pytest.raises(NetworkError) as caught:
            client.list()
    assert caught.value.status == 0 and "ConnectError" in caught.value.error
