// transaction: read
// search_vector_scoped on Neo4j 5.26 LTS (no Cypher 25 SEARCH): the global top-$fetch_k of the
// vector index, then the scope, layer and retraction filters and the best $k. The caller widens
// $fetch_k, then scans exactly, when fewer than $k survive (a small scope among large ones).
// Parameters: $vector, $visible, $layers (null: all), $k, $fetch_k.
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
CALL db.index.vector.queryNodes('memory_embedding', $fetch_k, $vector) YIELD node AS m, score
WITH m, score
WHERE m.scope_key IN visible AND ($layers IS NULL OR m.layer IN $layers) AND NOT coalesce(m.retracted, false)
RETURN m.id AS id, score
ORDER BY score DESC, id
LIMIT $k
