"""Fixtures over a real Beckon server. tests/src/python/python-sdk.test.ts starts one (real
PostgreSQL, the job worker) and runs this suite with:

BECKON_URL, BECKON_TOKEN          the resource server and an agent's API key
BECKON_SESSION_TOKEN              a person of the same organization (answers, dismisses)
BECKON_OTHER_TOKEN                an agent's key in another organization
BECKON_LIMITED_URL, _TOKEN        a second server whose API rate limit is 3 a minute
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from beckon import Beckon, Form


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(
            f"{name} is not set: run this suite through tests/src/python/python-sdk.test.ts", pytrace=False
        )
    return value


@dataclass(frozen=True)
class Server:
    url: str
    agent_token: str
    person_token: str
    other_token: str
    limited_url: str
    limited_token: str


@pytest.fixture(scope="session")
def server() -> Server:
    return Server(
        url=_env("BECKON_URL"),
        agent_token=_env("BECKON_TOKEN"),
        person_token=_env("BECKON_SESSION_TOKEN"),
        other_token=_env("BECKON_OTHER_TOKEN"),
        limited_url=_env("BECKON_LIMITED_URL"),
        limited_token=_env("BECKON_LIMITED_TOKEN"),
    )


@pytest.fixture
def beckon(server: Server) -> Iterator[Beckon]:
    with Beckon(server.url, server.agent_token) as client:
        yield client


class Person:
    """A person answering in the organization, over plain REST with a session token (not the
    SDK, so what the SDK sees was done by someone else)."""

    def __init__(self, server: Server) -> None:
        self.http = httpx.Client(
            base_url=server.url, headers={"authorization": f"Bearer {server.person_token}"}
        )
        self.user_id: str = self.http.get("/api/me").json()["user_id"]

    def post(self, path: str, body: Any = None) -> dict[str, Any]:
        response = self.http.post(path, json=body)
        assert response.status_code in (200, 201), response.text
        return dict(response.json())

    def answer(self, item_id: str, values: dict[str, Any]) -> dict[str, Any]:
        return self.post(f"/api/items/{item_id}/answer", {"values": values})

    def dismiss(self, item_id: str) -> dict[str, Any]:
        return self.post(f"/api/items/{item_id}/dismiss")

    def channel(self) -> str:
        """A new channel of the organization: its name."""
        name = f"py-{uuid.uuid4().hex[:10]}"
        self.post("/api/channels", {"name": name, "mode": "open"})
        return name


@pytest.fixture(scope="session")
def person(server: Server) -> Iterator[Person]:
    person = Person(server)
    yield person
    person.http.close()


def later(seconds: float, action: Callable[[], object]) -> threading.Timer:
    """Runs ``action`` on another thread after ``seconds`` (while the test waits)."""
    timer = threading.Timer(seconds, action)
    timer.start()
    return timer


YES_NO: Form = {"id": "deploy", "fields": [{"id": "ok", "type": "yesno", "label": "Deploy?"}]}
