#!/usr/bin/env bash
# The whole test suite on a fresh machine: set-up (into .venv), then pytest from .venv. The
# suite starts (and stops) its own local Neo4j unless HIPPOGRAPH_NEO4J_URI points at one.
set -euo pipefail
cd "$(dirname "$0")/.."
HIPPOGRAPH_SETUP_BROWSER=1 bash scripts/setup.sh  # also Chromium, for the Browser test
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
exec .venv/bin/python -m pytest "$@"
