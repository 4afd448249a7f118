// Vector channel of recall (approximate path): the index's top $fetch_k, then the scope and
// layer filter; with each hit its session and person cues for the evidence step.
CALL db.index.vector.queryNodes('memory_embedding', $fetch_k, $vector) YIELD node, score
WHERE node.scope_key IN $visible
  AND ($layers IS NULL OR node.layer IN $layers)
  AND NOT coalesce(node.retracted, false)
WITH node, score
ORDER BY score DESC, node.id
LIMIT $k
RETURN node.id AS id, score AS cosine, node.session_id AS session_id,
       [(node)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] AS persons
