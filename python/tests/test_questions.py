"""ask() and wait(): the outcomes a question can have, decided by a person over REST, by the
server at the deadline, or not at all."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone

from beckon import Beckon, Question
from conftest import YES_NO, Person, Server, later
from proxy import PASS, Fault, FaultyProxy


def test_ask_returns_the_item_and_wait_its_answer(beckon: Beckon, person: Person) -> None:
    question = beckon.ask("Deploy v2?", form=YES_NO, message="to production", level="warning")
    assert isinstance(question, Question)
    assert (question.title, question.status, question.form) == ("Deploy v2?", "open", YES_NO)
    assert question.created_by.type == "agent"

    later(0.3, lambda: person.answer(question.id, {"ok": True}))
    # A poll interval far beyond the wait: the answer can only arrive over the event stream.
    outcome = question.wait(timeout=20, poll_interval=600)

    assert outcome.status == "answered" and outcome.answered
    assert outcome.values == {"ok": True}
    assert outcome.answered_by is not None
    assert (outcome.answered_by.type, outcome.answered_by.id) == ("user", person.user_id)
    assert outcome.answered_via is None  # answered over the API
    assert outcome.by_policy is False
    assert (outcome.item.id, outcome.item.status, outcome.item.response) == (
        question.id,
        "answered",
        {"ok": True},
    )


def test_an_answer_given_before_the_wait_is_seen(beckon: Beckon, person: Person) -> None:
    question = beckon.ask("Early bird", form=YES_NO)
    person.answer(question.id, {"ok": False})
    outcome = question.wait(timeout=20, poll_interval=600)
    assert (outcome.status, outcome.values) == ("answered", {"ok": False})


def test_a_dismissed_question(beckon: Beckon, person: Person) -> None:
    question = beckon.ask("Dismiss me", form=YES_NO)
    later(0.3, lambda: person.dismiss(question.id))
    outcome = question.wait(timeout=20)
    assert (outcome.status, outcome.values, outcome.item.status) == ("dismissed", None, "dismissed")


def test_an_expired_question(beckon: Beckon) -> None:
    deadline = datetime.now(timezone.utc) + timedelta(seconds=1)
    question = beckon.ask("Too late", form=YES_NO, deadline_at=deadline)
    assert question.deadline_at is not None
    assert abs(datetime.fromisoformat(question.deadline_at) - deadline) < timedelta(milliseconds=1)
    outcome = question.wait(timeout=30)
    assert (outcome.status, outcome.item.status, outcome.values) == ("expired", "expired", None)


def test_a_timeout_policy_answers_at_the_deadline(beckon: Beckon) -> None:
    deadline = datetime.now(timezone.utc) + timedelta(seconds=1)
    question = beckon.ask(
        "Silence means no",
        form=YES_NO,
        deadline_at=deadline,
        on_timeout={"action": "answer", "values": {"ok": False}},
    )
    outcome = question.wait(timeout=30)
    assert (outcome.status, outcome.values, outcome.by_policy) == ("answered", {"ok": False}, True)
    assert outcome.answered_by is not None and outcome.answered_by.type == "policy"


def test_nobody_decides_in_time(beckon: Beckon) -> None:
    question = beckon.ask("Anyone?", form=YES_NO)
    outcome = question.wait(timeout=0.5)
    assert (outcome.status, outcome.values, outcome.answered_by) == ("timeout", None, None)
    assert outcome.item.status == "open"


def test_wait_on_an_item_by_id(beckon: Beckon) -> None:
    asked = beckon.ask("Never mind", form=YES_NO)
    later(0.3, lambda: beckon.withdraw(asked.id))
    outcome = beckon.wait(asked.id, timeout=20)
    assert (outcome.status, outcome.item.id) == ("withdrawn", asked.id)
    # An item already decided answers at once.
    assert beckon.wait(asked.id).status == "withdrawn"


def test_wait_polls_while_the_event_stream_is_unavailable(person: Person, server: Server) -> None:
    unavailable = Fault("status", 503, {"retry-after": "1"}, '{"error":"event stream unavailable"}')
    decide = lambda method, path, n: unavailable if path == "/mcp/sse" else PASS  # noqa: E731
    with FaultyProxy(server.url, decide) as proxy, Beckon(proxy.url, server.agent_token) as client:
        question = client.ask("Poll me", form=YES_NO)
        read = f"/api/items/{question.id}"

        def answer_while_polled() -> None:
            # A second read is sent only once the first is answered: that one saw it open.
            while len(proxy.seen("GET", read)) < 2:
                time.sleep(0.05)
            person.answer(question.id, {"ok": True})

        threading.Thread(target=answer_while_polled, daemon=True).start()
        outcome = question.wait(timeout=60, poll_interval=0.2)
        # Every stream attempt was refused: only repeated reads (the answer waited for two of
        # them) can have seen the answer.
        assert (outcome.status, outcome.values) == ("answered", {"ok": True})
        assert len(proxy.seen("GET", "/mcp/sse")) >= 1
