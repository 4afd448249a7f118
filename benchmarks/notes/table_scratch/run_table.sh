#!/bin/bash
# Issue 11's table in one run (eighth session): every row, the engine before the speed work
# (6a3bfff, Neo4j 5.26 on Java 17, its own servers where the harness allows) against this tree
# (Neo4j 2026.08.1 on Temurin 25). Run from the project root, on an idle machine:
#   git worktree add --detach /work/base-6a 6a3bfff
#   bash benchmarks/notes/table_scratch/run_table.sh /work/base-6a /tmp/t11
# Each command's output, with the load average at its start and end, goes to $OUT/<name>.log.
set -u
B=${1:?the before tree}; OUT=${2:?a folder for data and logs}
mkdir -p "$OUT"
run() {
  local name=$1; shift
  local log=$OUT/$name.log
  { echo "## $name"; echo "\$ $*"; echo "start $(date -u +%H:%M:%S) $(cat /proc/loadavg)"; } >"$log"
  PYTHONPATH=src:. HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 COLUMNS=200 "$@" >>"$log" 2>&1
  echo "end $(date -u +%H:%M:%S) $(cat /proc/loadavg) rc=$?" >>"$log"
}
PY=.venv/bin/python
stop() { for d in "$@"; do pkill -f "$d" ; done; sleep 10; }  # the kept servers of those folders

# recall at 10k and 100k: each tree on its own server (populated by its own package), raw index query beside
run populate10k $PY -m benchmarks.recall_ab --before "$B" --after . --size 10000 --rounds 0 \
  --data-dir "$OUT/r10k-after" --before-data-dir "$OUT/r10k-before"
run recall10k $PY -m benchmarks.recall_ab --before "$B" --after . --size 10000 --rounds 6 --per-round 25 \
  --data-dir "$OUT/r10k-after" --before-data-dir "$OUT/r10k-before"
run stages10k $PY -m benchmarks.recall_stages --size 10000 --data-dir "$OUT/r10k-after" --queries 10 --rounds 6
stop "$OUT/r10k-after" "$OUT/r10k-before"
run populate100k $PY -m benchmarks.recall_ab --before "$B" --after . --size 100000 --rounds 0 \
  --data-dir "$OUT/r100k-after" --before-data-dir "$OUT/r100k-before"
run recall100k $PY -m benchmarks.recall_ab --before "$B" --after . --size 100000 --rounds 4 --per-round 25 \
  --data-dir "$OUT/r100k-after" --before-data-dir "$OUT/r100k-before"
run stages100k $PY -m benchmarks.recall_stages --size 100000 --data-dir "$OUT/r100k-after" --queries 10 --rounds 6
stop "$OUT/r100k-after" "$OUT/r100k-before"

# the agent turn at 10k (MiniLM query embedding included), each tree its own server seeded by its own package
run agent10k $PY -m benchmarks.agent_ab --before "$B" --after . --memories 10000 --rounds 6 --per-round 30 \
  --data-dir "$OUT/agent-after" --before-data-dir "$OUT/agent-before"
stop "$OUT/agent-after" "$OUT/agent-before"

# writes: store, ingest (hashing embeddings, excluded) and ingest with MiniLM; each tree its own server
run writes $PY -m benchmarks.writes_ab --before "$B" --after . --workloads store ingest minilm --rounds 4 \
  --data-dir "$OUT/writes-after" --before-data-dir "$OUT/writes-before"

# consolidation, default 512 MiB of transaction memory; the before tree on its own server
run consolidation10k $PY -m benchmarks.consolidation_ab --before "$B" --after . --sizes 10000 --rounds 2 \
  --heap 1g --pagecache-mb 512 --before-data-dir "$OUT/cons-before"
rm -rf "$OUT/cons-before"
run consolidation100k $PY -m benchmarks.consolidation_ab --before "$B" --after . --sizes 100000 --rounds 1 --runs 1 \
  --before-data-dir "$OUT/cons-before"

# LoCoMo dev, each tree's own harness and package
(cd "$B" && PYTHONPATH=src:. HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 /work/main/$PY -m benchmarks.locomo.run \
  --data ../shared/data/locomo/locomo-dev.json) >"$OUT/locomo-before.log" 2>&1
run locomo-after $PY -m benchmarks.locomo.run --data ../shared/data/locomo/locomo-dev.json

# 1M (this tree only: the issue had no figure for it), then 10k again beside it for the ratio
run load1m $PY -m benchmarks.recall_ab --before . --after . --size 1000000 --bulk --data-dir "$OUT/r1m" \
  --heap 3g --pagecache-mb 1024 --rounds 0
run recall1m $PY -m benchmarks.recall_ab --before . --after . --size 1000000 --data-dir "$OUT/r1m" \
  --heap 3g --pagecache-mb 1024 --rounds 2 --per-round 20
run stages1m $PY -m benchmarks.recall_stages --size 1000000 --data-dir "$OUT/r1m" --queries 8 --rounds 3
