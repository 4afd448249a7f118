// transaction: read
// search_vector_candidates on Neo4j 5.26 LTS (no Cypher 25 SEARCH): the global top-$fetch_k of
// the vector index, then the scope, layer and retraction filters and the best $k; with each hit
// its session and person cues for the evidence step. The caller widens $fetch_k, then scans
// exactly, when fewer than $k survive (a small scope among large ones).
// Parameters: $vector, $visible, $layers (null: all), $k, $fetch_k.
CALL db.index.vector.queryNodes('memory_embedding', $fetch_k, $vector) YIELD node, score
WITH node, score
WHERE node.scope_key IN $visible AND ($layers IS NULL OR node.layer IN $layers) AND NOT coalesce(node.retracted, false)
WITH node, score
ORDER BY score DESC, node.id
LIMIT $k
RETURN node.id AS id, score AS cosine, node.session_id AS session_id,
       [(node)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] AS persons
