"""The run order of tests/conftest.py: the known-slow files first (a list that must name real
files), then the slower folders; with ``--dist loadfile`` the files that share the crashable
Neo4j go to one process. Checked on a small tree of tests beside a copy of the real conftest."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import ONE_PROCESS, SLOW_FIRST, TESTS, _run_rank

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
RECORDING = """import json, os
from pathlib import Path


def _record(name: str) -> None:
    row = {"file": Path(__file__).name, "test": name, "worker": os.environ.get("PYTEST_XDIST_WORKER")}
    with open(os.environ["RUN_ORDER_OUT"], "a") as fh:
        fh.write(json.dumps(row) + "\\n")


def test_one() -> None:
    _record("one")


def test_two() -> None:
    _record("two")
"""


def _pytest(root: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, RUN_ORDER_OUT=str(out))
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir", str(root), *args]
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120)


def _tree(root: Path, names: list[str]) -> None:
    (root / "tests").mkdir()
    shutil.copy(REPO / "tests" / "conftest.py", root / "tests" / "conftest.py")
    (root / "pytest.ini").write_text("[pytest]\nmarkers =\n    unit\n    integration\n    e2e\n    reliability\n")
    for name in names:
        (root / "tests" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "tests" / name).write_text(RECORDING)


@pytest.mark.parametrize("listed", ["SLOW_FIRST", "ONE_PROCESS"])
def test_the_lists_name_test_files_that_exist(listed: str) -> None:
    names = {"SLOW_FIRST": SLOW_FIRST, "ONE_PROCESS": ONE_PROCESS}[listed]
    missing = [name for name in names if not (TESTS / name).is_file() or not Path(name).name.startswith("test_")]
    assert missing == [], f"{listed} names files that are not tests: {missing}"
    assert len(set(names)) == len(names)


def test_the_files_of_one_process_are_listed_together_among_the_slow_ones() -> None:
    places = sorted(SLOW_FIRST.index(name) for name in ONE_PROCESS)
    assert places == list(range(places[0], places[0] + len(places)))


def test_slow_files_rank_before_their_folder_and_the_slower_folders_first() -> None:
    def rank(name: str) -> int:
        return _run_rank(SimpleNamespace(path=TESTS / name))  # type: ignore[arg-type]

    ranks = [rank(name) for name in SLOW_FIRST]
    assert ranks == sorted(ranks)
    folders = [rank(f"{folder}/test_x.py") for folder in ("reliability", "e2e", "integration", "unit")]
    assert ranks[-1] < folders[0] and folders == sorted(folders)


def test_the_shared_server_files_go_to_one_process(tmp_path: Path) -> None:
    _tree(tmp_path, ["unit/test_a.py", "unit/test_b.py", "e2e/test_c.py", *ONE_PROCESS])
    out = tmp_path / "ran.jsonl"
    done = _pytest(tmp_path, out, "-n", "2", "--dist", "loadfile", "--no-loadscope-reorder", "tests")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    together = {Path(name).name for name in ONE_PROCESS}
    assert len({row["worker"] for row in rows if row["file"] in together}) == 1, rows
    assert len({row["worker"] for row in rows}) == 2, "the other files went to the other process"
