#!/usr/bin/env bash
# The whole check on a fresh machine: set-up (into .venv), the static checks (scripts/check.sh:
# ruff, ruff format, mypy --strict, the import contracts; the first failure stops), then pytest
# from .venv in two processes (pytest-xdist, each with its own local Neo4j; a file's tests stay
# in one process), then the Cypher tests again on Neo4j 5.26 LTS (scripts/test-lts.sh).
# Arguments go to pytest (`bash scripts/test.sh -m unit -x`, `-n 0` for one process); with
# arguments the 5.26 run is left out unless HIPPOGRAPH_TEST_LTS=1. The suite starts (and stops)
# its own local Neo4j unless HIPPOGRAPH_NEO4J_URI points at one.
set -euo pipefail
cd "$(dirname "$0")/.."
# also Chromium (for the Browser and dashboard tests) and, required, the dashboard's build
HIPPOGRAPH_SETUP_BROWSER=1 HIPPOGRAPH_SETUP_DASHBOARD=1 bash scripts/setup.sh
bash scripts/check.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
lts="${HIPPOGRAPH_TEST_LTS:-$([ $# -eq 0 ] && echo 1 || echo 0)}"
.venv/bin/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder "$@"
if [ "$lts" = 1 ]; then
  bash scripts/test-lts.sh -n 2 --dist loadfile --no-loadscope-reorder "$@"
fi
