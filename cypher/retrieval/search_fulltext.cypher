// transaction: read
// Fulltext channel of recall: BM25 over search_text inside the visible scopes and layers
// ($lucene carries the escaped terms and the zero-boost scope/layer filter, see
// retrieval/lucene.py); with each hit its cosine to the query ($vector: null when the query
// has no direction), session and person cues.
CALL db.index.fulltext.queryNodes('memory_text', $lucene) YIELD node, score
WHERE node.scope_key IN $visible AND NOT coalesce(node.retracted, false)
WITH node, score
LIMIT $k
RETURN node.id AS id, score,
       CASE WHEN node.embedding IS NULL OR $vector IS NULL THEN null
            ELSE vector.similarity.cosine(node.embedding, $vector) END AS cosine,
       node.session_id AS session_id,
       [(node)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] AS persons
