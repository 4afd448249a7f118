// transaction: read
// Approximate top-k inside the vector index, filtered by scope there (Cypher 25 SEARCH): one
// range search over the scope chain per point of $chain (hippograph.scope.Scope.chain_points:
// one, two in a namespace) covers every visible scope at once; $floor raises the chain's low end
// (a memory's scope_lo at least $floor: '' for the whole chain, the scope's own chain_lo for that
// scope alone). $fetch_k hits per point, then the visible keys (the erase's tombstone), layer and
// retraction filters, and the best $k. The caller falls back to the exact scan when fewer than
// $k come back.
// Parameters: $vector, $visible, $chain, $floor, $layers (null: all), $k, $fetch_k.
CYPHER 25
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
UNWIND $chain AS at
CALL (at) {
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX memory_embedding_chain FOR $vector
                 WHERE m.scope_lo >= $floor AND m.scope_lo <= at AND m.scope_hi > at LIMIT $fetch_k)
    SCORE AS score
  RETURN m, score
}
WITH visible, m, score
WHERE m.scope_key IN visible AND ($layers IS NULL OR m.layer IN $layers) AND NOT coalesce(m.retracted, false)
RETURN m.id AS id, score
ORDER BY score DESC, id
LIMIT $k
