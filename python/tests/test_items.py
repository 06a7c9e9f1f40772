"""notify, get, list and its pages, answering, identity."""

from __future__ import annotations

import uuid

from beckon import Beckon, Item, ItemPage
from conftest import YES_NO, Person, Server


def test_notify_creates_an_item_without_a_form(beckon: Beckon) -> None:
    item = beckon.notify(
        "Backup finished",
        message="42 GB in 3 minutes",
        level="success",
        priority=1,
        tags=["backup", "nightly"],
        metadata={"run": 7},
    )
    assert isinstance(item, Item)
    assert (item.title, item.message, item.level, item.priority) == (
        "Backup finished",
        "42 GB in 3 minutes",
        "success",
        1,
    )
    assert (item.tags, item.metadata, item.form, item.status) == (
        ["backup", "nightly"],
        {"run": 7},
        None,
        "open",
    )
    assert item.created_by.type == "agent" and item.agent_id == item.created_by.id
    assert item.responses == [] and item.approvals is None
    assert item.on_timeout == {"action": "expire"}


def test_get_reads_the_item_again(beckon: Beckon, person: Person) -> None:
    # The person answering is the key's owner, the creator: let them approve.
    asked = beckon.ask("Which region?", form=YES_NO, approvals={"required": 1, "exclude_creator": False})
    person.answer(asked.id, {"ok": True})
    item = beckon.get(asked.id)
    assert (item.id, item.status, item.response) == (asked.id, "answered", {"ok": True})
    assert item.approvals is not None and (item.approvals.required, item.approvals.approved) == (1, 1)
    assert len(item.responses) == 1
    response = item.responses[0]
    assert (response.by.type, response.user_id, response.values, response.approves) == (
        "user",
        person.user_id,
        {"ok": True},
        True,
    )


def test_list_pages_through_a_channel(beckon: Beckon, person: Person) -> None:
    channel = person.channel()
    created = [beckon.notify(f"Item {n}", channel=channel).id for n in range(5)]

    first = beckon.list(channel=channel, limit=2)
    assert isinstance(first, ItemPage) and len(first.items) == 2 and first.next_cursor
    second = beckon.list(channel=channel, limit=2, cursor=first.next_cursor)
    assert second.next_cursor
    third = beckon.list(channel=channel, limit=2, cursor=second.next_cursor)
    assert (len(second.items), len(third.items), third.next_cursor) == (2, 1, None)
    paged = [item.id for page in (first, second, third) for item in page.items]
    assert sorted(paged) == sorted(created)
    assert all(item.channel == channel for page in (first, second, third) for item in page.items)

    assert sorted(item.id for item in beckon.iter_items(channel=channel, limit=2)) == sorted(created)
    assert beckon.list(channel=channel, status="answered").items == []


def test_a_callers_idempotency_key_makes_a_repeated_create_return_the_first_item(beckon: Beckon) -> None:
    key = str(uuid.uuid4())
    first = beckon.notify("Only once", idempotency_key=key)
    again = beckon.notify("Only once", idempotency_key=key)
    assert again.id == first.id


def test_a_person_answers_with_the_sdk_too(server: Server, person: Person) -> None:
    with Beckon(server.url, server.agent_token) as agent, Beckon(server.url, server.person_token) as people:
        asked = agent.ask("Ship it?", form=YES_NO)
        answered = people.answer(asked.id, {"ok": True})
        assert (answered.status, answered.answered_by and answered.answered_by.id) == (
            "answered",
            person.user_id,
        )
        assert people.me().source == "session" and agent.me().source == "api_key"
