#!/bin/sh
# Batched-write levers, before (main's tree: schema with the three unused range indexes) and
# after (this tree: schema step 3), alternating run by run; each run its own fresh server.
# Usage (repository root): sh benchmarks/notes/speed_scratch/writes_ab.sh BEFORE_TREE ROUNDS COUNT
BEFORE=$1; ROUNDS=${2:-2}; COUNT=${3:-20000}; AFTER=$(pwd); PY=${PY:-python}
for r in $(seq 1 "$ROUNDS"); do
  for v in "before 1000 2" "after 1000 2" "after 5000 2" "after 1000 4"; do
    set -- $v
    tree=$AFTER; [ "$1" = before ] && tree=$BEFORE
    echo "== round $r: $1 tree, batch $2, $3 writers, cues"
    PYTHONPATH="$tree/src:$AFTER" $PY -m benchmarks.store_bench --count "$COUNT" --batch "$2" --concurrency "$3" --reads 200 --cues 2>&1 | grep -E "write throughput|store benchmark"
  done
done
