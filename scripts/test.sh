#!/usr/bin/env bash
# The whole test suite on a fresh machine: set-up (into .venv), then pytest from .venv. The
# suite starts (and stops) its own local Neo4j unless HIPPOGRAPH_NEO4J_URI points at one.
set -euo pipefail
cd "$(dirname "$0")/.."
# also Chromium (for the Browser and dashboard tests) and, required, the dashboard's build
HIPPOGRAPH_SETUP_BROWSER=1 HIPPOGRAPH_SETUP_DASHBOARD=1 bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
exec .venv/bin/python -m pytest "$@"
