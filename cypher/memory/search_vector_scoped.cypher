// transaction: read
// Approximate top-k inside the vector index, filtered by scope there (Cypher 25 SEARCH): each
// visible scope key is searched on its own (the filter takes equality only), $fetch_k hits per
// key, then the layer and retraction filters, and the best $k of all keys. The caller falls
// back to the exact scan when fewer than $k come back.
// Parameters: $vector, $visible, $layers (null: all), $k, $fetch_k.
CYPHER 25
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
UNWIND visible AS key
CALL (key) {
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX memory_embedding_scoped FOR $vector WHERE m.scope_key = key LIMIT $fetch_k)
    SCORE AS score
  RETURN m, score
}
WITH m, score
WHERE ($layers IS NULL OR m.layer IN $layers) AND NOT coalesce(m.retracted, false)
RETURN m.id AS id, score
ORDER BY score DESC, id
LIMIT $k
