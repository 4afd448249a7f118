#!/usr/bin/env bash
# The whole check on a fresh machine: set-up (into .venv), then pytest from .venv in two processes
# (pytest-xdist, each with its own local Neo4j; a file's tests stay in one process; the 25 slowest
# steps listed at the end), with the static checks (scripts/check.sh: ruff, ruff format, mypy
# --strict, the import contracts) and the Cypher tests on Neo4j 5.26 LTS (scripts/test-lts.sh)
# running beside it at a lower CPU priority: they take the CPU the suite leaves idle while it waits
# on servers, and all of it once the suite is done. Their output is printed after the suite's, and
# the script fails when any of the three failed.
# Arguments go to pytest (`bash scripts/test.sh -m unit -x`, `-n 0` for one process); with
# arguments the 5.26 run is left out unless HIPPOGRAPH_TEST_LTS=1. The suite starts (and stops)
# its own local Neo4j unless HIPPOGRAPH_NEO4J_URI points at one.
set -euo pipefail
cd "$(dirname "$0")/.."
# also Chromium (for the Browser and dashboard tests) and, required, the dashboard's build
HIPPOGRAPH_SETUP_BROWSER=1 HIPPOGRAPH_SETUP_DASHBOARD=1 bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
lts="${HIPPOGRAPH_TEST_LTS:-$([ $# -eq 0 ] && echo 1 || echo 0)}"

logs=$(mktemp -d)
jobs_started=()
beside() {  # beside NAME COMMAND...: run COMMAND in a process group of its own, niced, output to a log
  setsid -w nice -n 10 "${@:2}" >"$logs/$1.log" 2>&1 &
  jobs_started+=("$1:$!")
}
stop_beside() {  # on any exit: nothing started here outlives the script
  local job
  for job in "${jobs_started[@]}"; do kill -- "-${job#*:}" 2>/dev/null || true; done
  rm -rf "$logs"
}
trap stop_beside EXIT

beside checks bash scripts/check.sh
if [ "$lts" = 1 ]; then
  beside lts-5.26 bash scripts/test-lts.sh -n 2 --dist loadfile --no-loadscope-reorder --durations=10 "$@"
fi

failed=()
.venv/bin/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=25 "$@" || failed+=(tests)
for job in "${jobs_started[@]}"; do
  name=${job%%:*}
  status=0
  wait "${job#*:}" || status=$?
  echo "===== ${name} (ran beside the tests) ====="
  cat "$logs/$name.log"
  [ "$status" = 0 ] || failed+=("$name")
done
jobs_started=()
if [ ${#failed[@]} -gt 0 ]; then
  echo "test.sh: failed: ${failed[*]}" >&2
  exit 1
fi
