// transaction: read
// search_key_vector on Neo4j 5.26 LTS (no key vector index there): the visible keys scanned
// exactly, the best $k whose memory is visible, live and of the layers, each memory once with
// its best key (cosine, then text); with it the memory's session and person cues.
// Parameters: $vector, $visible, $layers (null: all), $k, $fetch_k (unused: the scan is exact).
MATCH (k:Key) USING INDEX SEEK k:Key(scope_key)
WHERE k.scope_key IN $visible AND k.embedding IS NOT NULL AND $fetch_k > 0
WITH k, vector.similarity.cosine(k.embedding, $vector) AS score
MATCH (k)-[:KEY_OF]->(m)
WHERE m.scope_key IN $visible AND ($layers IS NULL OR m.layer IN $layers) AND NOT coalesce(m.retracted, false)
WITH k, m, score
ORDER BY score DESC, k.id
LIMIT $k
WITH m, collect({cosine: score, key: k.text}) AS found
WITH m, reduce(b = null, x IN found |
       CASE WHEN b IS NULL OR x.cosine > b.cosine OR (x.cosine = b.cosine AND x.key < b.key) THEN x ELSE b END) AS best
RETURN m.id AS id, best.cosine AS cosine, best.key AS key, m.session_id AS session_id,
       [(m)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] AS persons
