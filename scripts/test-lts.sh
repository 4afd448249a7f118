#!/usr/bin/env bash
# The tests that run Cypher in the store, the schema (every statement is planned), recall, writes
# and the layers that search by vector, against Neo4j 5.26 LTS: the suite's local embedded server
# built as HIPPOGRAPH_TEST_NEO4J_VERSION (default 5.26.31) and run on a JDK 17 or 21, installed
# here from apt when none is found.
# Extra arguments go to pytest (`bash scripts/test-lts.sh -x`). Expects scripts/setup.sh to have
# run (it is run when .venv is missing); the default 2026.x suite is scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || bash scripts/setup.sh
export HIPPOGRAPH_TEST_NEO4J_VERSION="${HIPPOGRAPH_TEST_NEO4J_VERSION:-5.26.31}"

# Where hippograph looks (src/hippograph/dbms/java_runtime.py): HIPPOGRAPH_JAVA_HOME, JAVA_HOME,
# java on PATH, /usr/lib/jvm/*. Neo4j 5.26 runs on Java 17 or 21 only.
java_major() { "$1/bin/java" -version 2>&1 | sed -nE '1s/[^"]*"(1\.)?([0-9]+).*/\2/p'; }
find_lts_jdk() {
  local home on_path="" major
  command -v java >/dev/null 2>&1 && on_path=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  for home in "${HIPPOGRAPH_JAVA_HOME:-}" "${JAVA_HOME:-}" "$on_path" /usr/lib/jvm/*; do
    [ -n "$home" ] && [ -x "$home/bin/javac" ] || continue
    major=$(java_major "$home")
    if [ "$major" = 17 ] || [ "$major" = 21 ]; then echo "$home"; return 0; fi
  done
  return 1
}
if ! find_lts_jdk >/dev/null; then
  echo "test-lts: installing a JDK 17 for Neo4j 5.26" >&2
  apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless >/dev/null
fi

LTS_TESTS=(
  tests/unit/test_server_capabilities.py
  tests/integration/test_schema_and_catalog.py
  tests/integration/test_graph_store.py
  tests/integration/test_transaction.py
  tests/integration/test_isolation.py
  tests/integration/test_vector_exactness.py
  tests/integration/test_vector_index_failure.py
  tests/integration/memory/test_small_scope_exactness.py
  tests/integration/memory/test_recall.py
  tests/integration/memory/test_recall_one_round_trip.py
  tests/integration/memory/test_write_path.py
  tests/integration/memory/test_activation.py
  tests/integration/memory/test_supersession.py
  tests/integration/memory/test_layer_semantic.py
  tests/integration/memory/test_layer_procedural.py
  tests/integration/memory/test_cue_uniqueness.py
  tests/integration/memory/test_namespaces.py
  tests/integration/promises/test_promise_erase_complete.py
)
# Built once here, not by each pytest process at once.
.venv/bin/python -c 'import os, tempfile
from hippograph.dbms.local_server import LocalNeo4j
LocalNeo4j(tempfile.mkdtemp(), neo4j_version=os.environ["HIPPOGRAPH_TEST_NEO4J_VERSION"]).build()'
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
exec .venv/bin/python -m pytest -p no:cacheprovider "${LTS_TESTS[@]}" "$@"
