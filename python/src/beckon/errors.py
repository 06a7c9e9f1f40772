"""Every failed call raises a BeckonError carrying what the server answered.

``status`` and ``body`` are exactly the HTTP status and JSON body of the REST answer (see the
Errors part of docs/api.md); ``error`` is the body's message, ``code`` its stable machine-readable
code (the table in docs/api.md: switch on it, not on the message; None only when no server answered
in the API's shape), ``details`` the rest of the body (``fields``, ``required``, ``key``...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class BeckonError(Exception):
    """A call failed. ``retry_after_seconds``: the answer's ``Retry-After``, when it had one."""

    def __init__(
        self, status: int, body: Mapping[str, Any], retry_after_seconds: float | None = None
    ) -> None:
        self.status = status
        self.body: dict[str, Any] = dict(body)
        self.error: str = str(self.body.get("error", f"HTTP {status}"))
        code = self.body.get("code")
        self.code: str | None = code if isinstance(code, str) else None
        self.details: dict[str, Any] = {
            key: value for key, value in self.body.items() if key not in ("error", "code")
        }
        self.retry_after_seconds = retry_after_seconds
        super().__init__(f"{status} {self.error}" if status else self.error)

    @property
    def fields(self) -> dict[str, str]:
        """For 400 and 422: field (or JSON path) to its problem; empty otherwise."""
        fields = self.body.get("fields")
        return dict(fields) if isinstance(fields, Mapping) else {}


class ValidationError(BeckonError):
    """422: a form answer was refused (``fields`` says why per field)."""


class InvalidRequestError(ValidationError):
    """400: the request itself is wrong (types, unknown fields, a bad form definition)."""


class UnauthorizedError(BeckonError):
    """401: missing, unknown, expired or revoked token."""


class PlanLimitError(BeckonError):
    """402: a plan limit was reached (``details`` holds key, limit, current, upgrade_url)."""


class PermissionDeniedError(BeckonError):
    """403: ``required`` names the missing permission (None for other refusals)."""

    @property
    def required(self) -> str | None:
        value = self.body.get("required")
        return value if isinstance(value, str) else None


class NotFoundError(BeckonError):
    """404: unknown id, or one of another organization."""


class ConflictError(BeckonError):
    """409: not allowed in the item's current state (``current_status``), or a conflict."""

    @property
    def current_status(self) -> str | None:
        value = self.body.get("status")
        return value if isinstance(value, str) else None


class GoneError(BeckonError):
    """410: no longer available."""


class PayloadTooLargeError(BeckonError):
    """413: the body is over the server's limit."""


class RateLimitError(BeckonError):
    """429: rate limited; ``retry_after_seconds`` says when the window ends."""


class ServerError(BeckonError):
    """5xx."""


class NetworkError(BeckonError):
    """No answer from the server (refused or dropped connection, DNS, timeout): status 0."""


_BY_STATUS: dict[int, type[BeckonError]] = {
    400: InvalidRequestError,
    401: UnauthorizedError,
    402: PlanLimitError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    410: GoneError,
    413: PayloadTooLargeError,
    422: ValidationError,
    429: RateLimitError,
}


def error_from_status(
    status: int, body: Mapping[str, Any], retry_after_seconds: float | None = None
) -> BeckonError:
    """The exception class of an HTTP error status, with its body."""
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else BeckonError)
    return cls(status, body, retry_after_seconds)
