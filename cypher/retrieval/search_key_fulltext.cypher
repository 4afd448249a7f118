// transaction: read
// The keys' fulltext channel of recall: BM25 over the keys' text inside the visible scopes and
// layers ($lucene as for search_fulltext), the best $k keys whose memory is visible and live,
// each memory once with its best key (BM25, then text); with it the memory's own cosine to the
// query ($vector: null when the query has no direction), session and person cues.
// Parameters: $lucene, $visible, $layers (null: all), $k, $vector.
CALL db.index.fulltext.queryNodes('key_text', $lucene) YIELD node, score
WHERE node.scope_key IN $visible
MATCH (node)-[:KEY_OF]->(m)
WHERE m.scope_key IN $visible AND ($layers IS NULL OR m.layer IN $layers) AND NOT coalesce(m.retracted, false)
WITH node, m, score
LIMIT $k
WITH m, collect({score: score, key: node.text}) AS found
WITH m, reduce(b = null, x IN found |
       CASE WHEN b IS NULL OR x.score > b.score OR (x.score = b.score AND x.key < b.key) THEN x ELSE b END) AS best
RETURN m.id AS id, best.score AS score, best.key AS key,
       CASE WHEN m.embedding IS NULL OR $vector IS NULL THEN null
            ELSE vector.similarity.cosine(m.embedding, $vector) END AS cosine,
       m.session_id AS session_id,
       [(m)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] AS persons
