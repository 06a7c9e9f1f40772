"""What a call sends and how its answer is read: shared by the sync and the async client, which
only do the I/O. The retry rules are the TypeScript SDK's (sdk/src/retry.ts)."""

from __future__ import annotations

import json
import os
import random
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

import httpx

from .errors import BeckonError, ConflictError, NetworkError, RateLimitError, ServerError, error_from_status
from .models import ListFilters

VERSION = "0.1.0"

#: A 429 or 503 asking to wait longer than this is not retried: it raises with its
#: ``retry_after_seconds``, and the caller decides.
MAX_RETRY_AFTER_SECONDS = 10.0

Kind = Literal["query", "create", "action"]


@dataclass(frozen=True)
class Settings:
    base_url: str
    token: str
    retries: int
    retry_delay: float
    timeout: float

    @staticmethod
    def resolve(
        base_url: str | None, token: str | None, retries: int, retry_delay: float, timeout: float
    ) -> Settings:
        """Arguments first, else ``BECKON_URL`` and ``BECKON_TOKEN`` (as the CLI reads them)."""
        url = base_url or os.environ.get("BECKON_URL")
        key = token or os.environ.get("BECKON_TOKEN")
        if not url or not key:
            raise ValueError("Beckon needs base_url and token (or BECKON_URL and BECKON_TOKEN)")
        return Settings(url.rstrip("/"), key, retries, retry_delay, timeout)

    def client_options(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url,
            "headers": {
                "authorization": f"Bearer {self.token}",
                "accept": "application/json",
                "user-agent": f"beckon-python/{VERSION}",
            },
            "timeout": self.timeout,
        }


@dataclass(frozen=True)
class Call:
    """One logical call; its attempts share everything here, the Idempotency-Key included."""

    kind: Kind
    method: str
    path: str
    params: dict[str, str] | None = None
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def safe(self) -> bool:
        """Reads, and creates carrying an Idempotency-Key, may be sent again after any failure."""
        return self.kind != "action"

    def request_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"headers": self.headers}
        if self.params:
            options["params"] = self.params
        if self.body is not None:
            options["json"] = self.body
        return options


def _iso(value: datetime | str) -> str:
    if isinstance(value, str):
        return value
    if value.tzinfo is None:
        raise ValueError("deadline_at needs a timezone-aware datetime")
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def create_item(title: str, fields: Mapping[str, Any], idempotency_key: str | None) -> Call:
    """``POST /api/items`` with an Idempotency-Key (the caller's, else a new one for this call)."""
    body: dict[str, Any] = {"title": title, **fields}
    if "deadline_at" in body:
        body["deadline_at"] = _iso(body["deadline_at"])
    key = idempotency_key or str(uuid.uuid4())
    return Call("create", "POST", "/api/items", body=body, headers={"idempotency-key": key})


def _query_value(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def list_items(filters: ListFilters) -> Call:
    params = {name: _query_value(value) for name, value in filters.items() if value is not None}
    return Call("query", "GET", "/api/items", params=params)


def item_path(item_id: str, action: str | None = None) -> str:
    return f"/api/items/{item_id}" + (f"/{action}" if action else "")


def get_item(item_id: str) -> Call:
    return Call("query", "GET", item_path(item_id))


def act_on_item(item_id: str, action: str, body: Any = None) -> Call:
    return Call("action", "POST", item_path(item_id, action), body=body)


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "").strip()
    return float(value) if value.isdigit() else None


def error_of(response: httpx.Response) -> BeckonError:
    """The exception for an error answer; a body that is not a JSON error (a proxy's page) keeps
    its status with the start of its text as ``error``."""
    text = response.text
    body: Mapping[str, Any] = {"error": text[:200] or f"HTTP {response.status_code}"}
    try:
        parsed = json.loads(text)
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), str):
            body = parsed
    except ValueError:
        pass
    return error_from_status(response.status_code, body, _retry_after(response))


def read(response: httpx.Response) -> Any:
    """The JSON of a successful answer; raises the matching BeckonError otherwise."""
    if response.is_success:
        return response.json()
    raise error_of(response)


def network_error(exc: httpx.TransportError) -> NetworkError:
    return NetworkError(0, {"error": f"network error: {type(exc).__name__}: {exc}"})


def retry_delay(error: BeckonError, attempt: int, safe: bool, settings: Settings) -> float | None:
    """Seconds to wait before attempt ``attempt + 1``, or None when ``error`` is final. A call
    that may have been applied is sent again only if it is safe (reads, keyed creates); 429 and
    503 say the request was not processed, so every call retries them."""
    if attempt >= settings.retries:
        return None
    unprocessed = isinstance(error, RateLimitError) or error.status == 503
    in_progress = isinstance(error, ConflictError) and "idempotency key is in progress" in error.error
    transient = isinstance(error, (NetworkError, ServerError)) or in_progress
    if not unprocessed and not (safe and transient):
        return None
    delay = settings.retry_delay * 2.0**attempt * (0.5 + random.random() / 2)
    if unprocessed and error.retry_after_seconds is not None:
        # The server says when to come back: sooner is refused again, much later is the
        # caller's decision (the error says how long).
        if error.retry_after_seconds > MAX_RETRY_AFTER_SECONDS:
            return None
        delay = max(delay, error.retry_after_seconds + random.random() * 0.25)
    return delay
