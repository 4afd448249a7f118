#!/usr/bin/env bash
# The whole check on a fresh machine: set-up (into .venv), the static checks (scripts/check.sh:
# ruff, ruff format, mypy --strict, the import contracts; the first failure stops), then pytest
# from .venv with this script's arguments (`bash scripts/test.sh -m unit -x`). The suite starts
# (and stops) its own local Neo4j unless HIPPOGRAPH_NEO4J_URI points at one.
set -euo pipefail
cd "$(dirname "$0")/.."
# also Chromium (for the Browser and dashboard tests) and, required, the dashboard's build
HIPPOGRAPH_SETUP_BROWSER=1 HIPPOGRAPH_SETUP_DASHBOARD=1 bash scripts/setup.sh
bash scripts/check.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
exec .venv/bin/python -m pytest "$@"
