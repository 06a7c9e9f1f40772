"""Beckon for Python: ask people from your code and get their answers back.

    from beckon import Beckon

    beckon = Beckon("https://beckon.example.com", "<API key>")
    question = beckon.ask("Deploy v2?", form={"id": "deploy", "fields": [
        {"id": "ok", "type": "yesno", "label": "Deploy?"}]})
    outcome = question.wait(timeout=300)
"""

from ._calls import MAX_RETRY_AFTER_SECONDS, VERSION
from ._wait import Outcome, outcome_of
from .async_client import AsyncBeckon, AsyncQuestion
from .client import Beckon, Question
from .errors import (
    BeckonError,
    ConflictError,
    GoneError,
    InvalidRequestError,
    NetworkError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    PlanLimitError,
    RateLimitError,
    ServerError,
    UnauthorizedError,
    ValidationError,
)
from .models import (
    Actor,
    ApprovalsInput,
    Approvals,
    Assignee,
    EscalationStep,
    Form,
    FormField,
    Identity,
    Item,
    ItemAction,
    ItemActionInput,
    ItemFields,
    ItemPage,
    ListFilters,
    OnTimeout,
    Response,
    SelectOption,
    StreamEvent,
)

__version__ = VERSION

__all__ = [
    "MAX_RETRY_AFTER_SECONDS",
    "Actor",
    "ApprovalsInput",
    "Approvals",
    "Assignee",
    "AsyncBeckon",
    "AsyncQuestion",
    "Beckon",
    "BeckonError",
    "ConflictError",
    "EscalationStep",
    "Form",
    "FormField",
    "GoneError",
    "Identity",
    "InvalidRequestError",
    "Item",
    "ItemAction",
    "ItemActionInput",
    "ItemFields",
    "ItemPage",
    "ListFilters",
    "NetworkError",
    "NotFoundError",
    "OnTimeout",
    "Outcome",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "PlanLimitError",
    "Question",
    "RateLimitError",
    "Response",
    "SelectOption",
    "ServerError",
    "StreamEvent",
    "UnauthorizedError",
    "ValidationError",
    "outcome_of",
]
