// The vector channel inside the index: each visible scope searched in the scoped vector index
// (Cypher 25 SEARCH, $fetch_k hits per key), then the layer and retraction filters and the best
// $k, with each hit's session and, when the query names someone, its person cues. Scopes that
// see no more than $exact_below memories skip the index (the exact scan answers them).
// part: vector
// in: visible, population
// out: approx = []
CALL (visible, population) {
  UNWIND CASE WHEN NOT $directed OR population <= $exact_below THEN [] ELSE visible END AS key
  CALL (key) {
    MATCH (m:Memory)
      SEARCH m IN (VECTOR INDEX memory_embedding_scoped FOR $vector WHERE m.scope_key = key LIMIT $fetch_k)
      SCORE AS score
    RETURN m AS node, score
  }
  WITH node, score
  WHERE ($layers IS NULL OR node.layer IN $layers) AND NOT coalesce(node.retracted, false)
  WITH node, score
  ORDER BY score DESC, node.id
  LIMIT $k
  RETURN collect({id: node.id, cosine: score, session_id: node.session_id,
                  persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                               ELSE [(node)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS approx
}
