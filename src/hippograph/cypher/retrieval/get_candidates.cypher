// The candidates of one recall with their exact cosine to the query (null when unembedded)
// and the person cues they carry (for the named-person bonus).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.scope_key IN $visible
RETURN m {.*, embedding: null} AS m,
       CASE WHEN m.embedding IS NULL THEN null
            ELSE vector.similarity.cosine(m.embedding, $vector) END AS cosine,
       [(m)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] AS persons
