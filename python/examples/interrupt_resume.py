"""A LangGraph-style ``interrupt()`` answered by a person through Beckon.

In LangGraph a node calls ``interrupt(payload)``: the run stops, the checkpointer keeps the
graph's state under a ``thread_id``, and a later ``Command(resume=value)`` runs the node again,
where ``interrupt()`` now returns ``value``. LangGraph itself is not installed here, so this
script models that pattern in plain Python (a three-node graph, a JSON checkpoint file); with
LangGraph, the same two Beckon calls go where this script's runner makes them: ``ask`` when the
run is interrupted, ``wait`` before resuming.

    python interrupt_resume.py start  CHECKPOINT   # runs to the approval, asks, saves, exits
    python interrupt_resume.py resume CHECKPOINT   # waits for the answer, then finishes the run

The two halves may run in different processes, hours apart: the checkpoint holds the question's
id. Connection: BECKON_URL and BECKON_TOKEN (an agent's API key).
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from beckon import Beckon, Form

State = dict[str, Any]


class Interrupt(Exception):
    """Raised by ``interrupt()`` to pause the run (LangGraph's GraphInterrupt)."""

    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__(payload["title"])
        self.payload = payload


_resume_values: list[Any] = []


def interrupt(payload: dict[str, Any]) -> Any:
    """Pauses the run with ``payload`` (a question), or returns the answer when resuming."""
    if _resume_values:
        return _resume_values.pop()
    raise Interrupt(payload)


APPROVAL: Form = {
    "id": "release-approval",
    "fields": [
        {"id": "approve", "type": "yesno", "label": "Deploy this release?"},
        {"id": "note", "type": "textarea", "label": "Note", "required": False},
    ],
}


def plan(state: State) -> State:
    return {**state, "plan": f"deploy {state['release']} to production ({len(state['changes'])} changes)"}


def approve(state: State) -> State:
    answer = interrupt({"title": f"Approve {state['release']}?", "message": state["plan"], "form": APPROVAL})
    return {**state, "approved": answer["approve"], "note": answer.get("note")}


def deploy(state: State) -> State:
    result = f"deployed {state['release']}" if state["approved"] else f"skipped {state['release']}"
    return {**state, "result": result}


GRAPH: list[tuple[str, Callable[[State], State]]] = [("plan", plan), ("approve", approve), ("deploy", deploy)]


def run_from(node: int, state: State, checkpoint: Path, beckon: Beckon) -> State | None:
    """Runs the graph from ``node``; on an interrupt, asks, saves the checkpoint, returns None."""
    for index in range(node, len(GRAPH)):
        name, step = GRAPH[index]
        try:
            state = step(state)
        except Interrupt as paused:
            # One question per thread and node, even if this process dies and starts again.
            key = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{state['thread_id']}/{name}"))
            question = beckon.ask(
                paused.payload["title"],
                form=paused.payload["form"],
                message=paused.payload["message"],
                metadata={"thread_id": state["thread_id"], "node": name},
                idempotency_key=key,
            )
            checkpoint.write_text(json.dumps({"node": index, "state": state, "item_id": question.id}))
            print(f"interrupted at {name}: waiting for an answer to {question.id}")
            return None
    return state


def start(checkpoint: Path, beckon: Beckon) -> None:
    state: State = {"thread_id": str(uuid.uuid4()), "release": "v2.3.0", "changes": ["api", "web", "db"]}
    run_from(0, state, checkpoint, beckon)


def resume(checkpoint: Path, beckon: Beckon, timeout: float | None = None) -> None:
    saved = json.loads(checkpoint.read_text())
    outcome = beckon.wait(saved["item_id"], timeout=timeout)
    if outcome.status == "timeout":
        print(f"still waiting for {saved['item_id']}: run resume again later")
        return
    # A question dismissed, expired or withdrawn is a refusal.
    values = outcome.values if outcome.status == "answered" and outcome.values else {"approve": False}
    by = outcome.answered_by
    print(outcome.status + (f" by {by.type} {by.id or ''}".rstrip() if by else ""))
    _resume_values.append(values)
    final = run_from(saved["node"], saved["state"], checkpoint, beckon)
    if final is not None:
        checkpoint.unlink()
        print(json.dumps(final))


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in ("start", "resume"):
        print(__doc__)
        return 2
    with Beckon() as beckon:
        if argv[1] == "start":
            start(Path(argv[2]), beckon)
        else:
            resume(Path(argv[2]), beckon)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
