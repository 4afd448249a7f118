// transaction: read
// Vector channel of recall (exact path): cosine over every visible memory of the layers;
// used when the scope's share of the index is too small for the approximate path.
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
WHERE m.scope_key IN $visible
  AND ($layers IS NULL OR m.layer IN $layers)
  AND m.embedding IS NOT NULL
  AND NOT coalesce(m.retracted, false)
WITH m, vector.similarity.cosine(m.embedding, $vector) AS cosine
ORDER BY cosine DESC, m.id
LIMIT $k
RETURN m.id AS id, cosine, m.session_id AS session_id,
       [(m)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] AS persons
