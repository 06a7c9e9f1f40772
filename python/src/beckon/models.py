"""The API's resources as typed Python values.

Answers are stdlib dataclasses built from the JSON the server sends; request shapes (forms,
assignees, creation fields, list filters) are ``TypedDict``s, so plain dicts type-check. Every
name follows the OpenAPI document served at ``/api/openapi.json`` (``tests/test_models.py``
compares them with the document of a running server). Timestamps stay ISO 8601 strings, as sent.
"""

import dataclasses
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, ClassVar, Literal, Required, Self, TypedDict

Level = Literal["info", "warning", "error", "success"]
Status = Literal["open", "answered", "dismissed", "archived", "expired", "withdrawn"]
ActorType = Literal["user", "agent", "system", "policy"]
AnsweredVia = Literal["email", "slack", "push", "mcp", "telegram", "discord", "teams", "sms", "whatsapp"]


class SelectOption(TypedDict):
    value: str
    label: str


class FormField(TypedDict, total=False):
    """One field of a form; ``type`` decides which of the other keys apply."""

    id: Required[str]
    type: Required[
        Literal["yesno", "checkbox", "text", "textarea", "number", "select", "radio", "multiselect", "date"]
    ]
    label: Required[str]
    required: bool
    placeholder: str
    help: str
    default: Any
    yes_label: str
    no_label: str
    options: list[SelectOption]
    min_length: int
    max_length: int
    min: float
    max: float


class Form(TypedDict):
    id: str
    fields: list[FormField]


class Assignee(TypedDict, total=False):
    """``{"type": "user"|"team"|"schedule", "id": ...}`` or ``{"type": "role", "name": ...}``."""

    type: Required[Literal["user", "team", "role", "schedule"]]
    id: str
    name: str


class EscalationStep(TypedDict, total=False):
    """``{"after": "PT30M", "action": "remind"}`` or ``{..., "action": "escalate", "to": [...]}``."""

    after: Required[str]
    action: Required[Literal["remind", "escalate"]]
    to: list[Assignee]


class OnTimeout(TypedDict, total=False):
    """What happens at the deadline: ``expire`` (default), ``answer`` with ``values``, ``dismiss``."""

    action: Required[Literal["expire", "answer", "dismiss"]]
    values: dict[str, Any]


class ApprovalsInput(TypedDict, total=False):
    required: Required[int]
    field: str
    approve_value: str
    exclude_creator: bool
    any_rejection_closes: bool
    allow_agents: bool
    allow_timeout_answer: bool


class ItemActionInput(TypedDict, total=False):
    """The action an answer decides: its digest (SHA-256 over RFC 8785 JCS) is stored and named
    by the outcome, so the asking side can check the decision is for what it will run."""

    kind: Required[str]
    args: Required[dict[str, Any]]
    policy_version: str


class RequireReauth(TypedDict, total=False):
    """A risky decision: answering needs a fresh verification (``passkey``, or ``any`` sign-in)
    within ``within_minutes`` (default 5); only a person's dashboard session answers it."""

    method: Required[Literal["passkey", "any"]]
    within_minutes: int


class RepeatUntilAck(TypedDict):
    """Notify the current target again every ``every_minutes`` until someone acknowledges."""

    every_minutes: int


class ItemFields(TypedDict, total=False):
    """Optional fields of a new item; ``title``, and a question's ``form``, are passed apart."""

    message: str
    level: Level
    priority: int
    channel_id: str
    channel: str
    assignees: list[Assignee]
    escalation: list[EscalationStep]
    tags: list[str]
    metadata: dict[str, Any]
    callback_url: str
    deadline_at: datetime | str
    on_timeout: OnTimeout
    approvals: ApprovalsInput
    template: str
    action: ItemActionInput
    require_reauth: RequireReauth
    repeat_until_ack: RepeatUntilAck
    escalation_policy_id: str


class ListFilters(TypedDict, total=False):
    """Query of ``GET /api/items``; ``cursor`` is the previous page's ``next_cursor``."""

    limit: int
    cursor: str
    status: Status
    channel_id: str
    channel: str
    include_archived: bool
    include_snoozed: bool
    assigned_to_me: bool
    claimed_by_me: bool
    q: str


class Model:
    """Base of the answer dataclasses: ``from_dict`` builds one from the JSON the server sent,
    converting nested values (``_nested``: field → converter), ignoring fields the class does not
    know (a newer server may add some) and leaving missing ones at their default or None."""

    _nested: ClassVar[Mapping[str, Callable[[Any], Any]]] = {}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        values: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            if not field.init:
                continue
            if field.name in data:
                raw = data[field.name]
                convert = cls._nested.get(field.name)
                values[field.name] = convert(raw) if convert and raw is not None else raw
            elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                values[field.name] = None
        return cls(**values)


def _many(cls: type[Model]) -> Callable[[Any], list[Any]]:
    return lambda rows: [cls.from_dict(row) for row in rows]


@dataclasses.dataclass
class Actor(Model):
    """Who did something: ``type`` and ``id`` (null for the system and for a timeout policy)."""

    type: ActorType
    id: str | None


@dataclasses.dataclass
class Approvals(Model):
    """An item's approval rule and its count so far."""

    required: int
    field: str
    approve_value: str | None
    exclude_creator: bool
    any_rejection_closes: bool
    allow_agents: bool
    allow_timeout_answer: bool
    approved: int
    rejected: int


@dataclasses.dataclass
class Response(Model):
    """One answer to an item (every answer is kept, oldest first)."""

    by: Actor
    user_id: str | None
    values: dict[str, Any]
    approves: bool | None
    at: str

    _nested: ClassVar[Mapping[str, Callable[[Any], Any]]] = {"by": Actor.from_dict}


@dataclasses.dataclass
class ItemAction(Model):
    """The action bound to an item, with the digest an answer decides."""

    kind: str
    args: dict[str, Any]
    policy_version: str | None
    digest: str


@dataclasses.dataclass
class Item(Model):
    """A notification or question, as the server answers it."""

    id: str
    org_id: str
    title: str
    message: str | None
    level: Level
    priority: int
    channel_id: str | None
    channel: str | None
    tags: list[str]
    form: Form | None
    action: ItemAction | None
    receipt: str | None
    """The signed receipt (compact JWS) of the decision; verify with the organization's JWKS."""
    require_reauth: RequireReauth | None
    metadata: dict[str, Any]
    callback_url: str | None
    deadline_at: str | None
    status: Status
    response: dict[str, Any] | None
    answered_at: str | None
    answered_by: Actor | None
    answered_via: AnsweredVia | None
    acked_at: str | None
    acked_by: Actor | None
    repeat_until_ack: RepeatUntilAck | None
    escalation_policy_id: str | None
    snoozed_until: str | None
    pinned: bool
    archived_at: str | None
    assignees: list[Assignee]
    claimed_by: Actor | None
    claimed_at: str | None
    escalation: list[EscalationStep]
    escalation_step: int
    next_escalation_at: str | None
    created_by: Actor
    agent_id: str | None
    created_at: str
    updated_at: str
    on_timeout: OnTimeout
    approvals: Approvals | None
    responses: list[Response]
    names: dict[str, str]
    """Display names by id of the people (name, else email), agents and teams the item refers to."""

    _nested: ClassVar[Mapping[str, Callable[[Any], Any]]] = {
        "answered_by": Actor.from_dict,
        "claimed_by": Actor.from_dict,
        "created_by": Actor.from_dict,
        "approvals": Approvals.from_dict,
        "responses": _many(Response),
        "action": ItemAction.from_dict,
    }


@dataclasses.dataclass
class ItemPage(Model):
    """One page of ``list()``: pass ``next_cursor`` back for the next (None: no more)."""

    items: list[Item]
    next_cursor: str | None

    _nested: ClassVar[Mapping[str, Callable[[Any], Any]]] = {"items": _many(Item)}


@dataclasses.dataclass
class Identity(Model):
    """Who a token is (``GET /api/me``): an agent's key has ``agent_id`` and ``source`` api_key."""

    user_id: str
    org_id: str
    agent_id: str | None
    source: Literal["session", "api_key"]
    role: str
    permissions: list[str]
    client_id: str | None = None


@dataclasses.dataclass
class StreamEvent(Model):
    """An event of the agent event stream (``GET /mcp/sse``): ``type`` is ``item.created``,
    ``item.answered``...; ``id`` is the resume point (``last_event_id``)."""

    id: str
    type: str
    created_at: str
    item: Item | None

    _nested: ClassVar[Mapping[str, Callable[[Any], Any]]] = {"item": Item.from_dict}
