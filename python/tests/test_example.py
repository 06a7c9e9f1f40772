"""examples/interrupt_resume.py runs as documented: interrupted in one process, resumed in
another after a person decides."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Person

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "interrupt_resume.py"


def example(*args: str) -> str:
    done = subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("decision", ["approve", "dismiss"])
def test_the_interrupted_run_resumes_with_the_persons_decision(
    tmp_path: Path, person: Person, decision: str
) -> None:
    checkpoint = tmp_path / "checkpoint.json"
    assert "interrupted at approve" in example("start", str(checkpoint))
    saved = json.loads(checkpoint.read_text())
    assert saved["node"] == 1 and saved["state"]["plan"].startswith("deploy v2.3.0")

    if decision == "approve":
        person.answer(saved["item_id"], {"approve": True, "note": "ship it"})
    else:
        person.dismiss(saved["item_id"])
    lines = example("resume", str(checkpoint)).strip().splitlines()

    final = json.loads(lines[-1])
    assert final["thread_id"] == saved["state"]["thread_id"]
    if decision == "approve":
        assert lines[0] == f"answered by user {person.user_id}"
        assert (final["approved"], final["note"], final["result"]) == (True, "ship it", "deployed v2.3.0")
    else:
        assert lines[0] == "dismissed"
        assert (final["approved"], final["result"]) == (False, "skipped v2.3.0")
    assert not checkpoint.exists()
