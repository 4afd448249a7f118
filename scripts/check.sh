#!/usr/bin/env bash
# The static checks, in .venv (bash scripts/setup.sh made it), each failing fast: ruff's lint and its
# format check, mypy --strict on src/ (pyproject's [tool.mypy]) and the import contracts
# (pyproject's [tool.importlinter]). scripts/test.sh runs them beside the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
run() { echo "check: $*" >&2; "$@"; }
run "$BIN/ruff" check .
run "$BIN/ruff" format --check .
run "$BIN/mypy"
run "$BIN/lint-imports"
