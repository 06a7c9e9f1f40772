"""The package and its example pass mypy --strict (the installed package's py.typed marker is
checked where the suite installs it: tests/src/python/python-sdk.test.ts)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_and_its_example_pass_mypy_strict() -> None:
    with tempfile.TemporaryDirectory() as cache:
        command = [
            sys.executable, "-m", "mypy", "--strict", "--python-version", "3.11", "--cache-dir", cache,
            # Keyword arguments typed with Unpack[TypedDict] (PEP 692) are still flagged
            # experimental by Debian's mypy 1.0.
            "--enable-incomplete-feature=Unpack",
            str(ROOT / "src" / "beckon"), str(ROOT / "examples"),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
