"""The folder markers of tests/conftest.py: ``-m unit`` does not import the other folders, and a
test whose declared folder marker disagrees with its folder is refused at collection. Run on a
small tree of tests beside a copy of the real conftest (the suite itself shows the marking)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
MARKED_INTEGRATION = "import pytest\n\npytestmark = pytest.mark.integration\n\n\ndef test_a() -> None:\n    pass\n"


def _pytest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir", str(root), *args]
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120)


def _tree(root: Path, files: dict[str, str]) -> None:
    (root / "tests").mkdir()
    shutil.copy(REPO / "tests" / "conftest.py", root / "tests" / "conftest.py")
    (root / "pytest.ini").write_text("[pytest]\nasyncio_mode = auto\nmarkers =\n    unit\n    integration\n")
    for name, text in files.items():
        (root / "tests" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "tests" / name).write_text(text)


def test_unit_skips_other_folders_and_refuses_a_marker_of_another_folder(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "unit/test_a.py": MARKED_INTEGRATION,
            "integration/test_b.py": "raise SystemExit('imported a folder that -m unit does not want')\n",
        },
    )
    done = _pytest(tmp_path, "-m", "unit", "tests")
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "tests/unit/test_a.py::test_a: marked integration in tests/unit/" in output
    assert "imported a folder" not in output
