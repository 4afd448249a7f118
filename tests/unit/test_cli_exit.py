"""The ``hippograph`` command ends as soon as it is done: its exit handlers run and its output
is flushed, its exit code is the command's, and the interpreter is not torn down."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import hippograph

pytestmark = pytest.mark.unit

SRC = Path(hippograph.__file__).resolve().parent.parent


def _command(*args: str) -> subprocess.CompletedProcess[str]:
    code = textwrap.dedent(
        f"""
        import atexit, sys

        class Kept:
            def __del__(self):
                print("torn down", flush=True)  # only when the interpreter frees its modules

        kept = Kept()
        atexit.register(lambda: print("exit handlers ran"))
        sys.argv = ["hippograph", *{list(args)!r}]
        from hippograph.app.cli import main
        main()
        """
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "HOME": str(Path.home())},
    )  # fmt: skip


def test_a_command_ends_with_its_output_and_handlers_and_no_teardown() -> None:
    done = _command("neo4j", "--help")
    assert done.returncode == 0, done.stderr
    assert "start" in done.stdout and "exit handlers ran" in done.stdout
    assert "torn down" not in done.stdout


def test_a_failing_command_keeps_its_exit_code() -> None:
    done = _command("no-such-command")
    assert done.returncode == 2
    assert "No such command" in done.stderr and "exit handlers ran" in done.stdout
