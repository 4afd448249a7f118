// transaction: read
// The raw global top-$fetch_k of the vector index, then the scope filter (which can starve a
// small scope): the benchmarks' floor, one index query (recall uses search_vector_scoped).
// $vector_index: the vector index's name on this server (ServerCapabilities.vector_index).
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
CALL db.index.vector.queryNodes($vector_index, $fetch_k, $vector) YIELD node, score
WHERE node.scope_key IN visible
  AND ($layers IS NULL OR node.layer IN $layers)
  AND NOT coalesce(node.retracted, false)
RETURN node.id AS id, score
ORDER BY score DESC, id
LIMIT $k
