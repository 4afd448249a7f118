#!/usr/bin/env bash
# The demo on a fresh machine: set-up (into .venv), then `hippograph demo` on the local
# embedded Neo4j (data under ./.hippograph). Offline by default; export ANTHROPIC_API_KEY to use Claude.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
exec .venv/bin/hippograph demo "$@"
