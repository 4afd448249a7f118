// The vector channel inside the index: one range search over the whole scope chain per point of
// $chain (hippograph.scope.Scope.chain_points: one, two in a namespace; '' entries are padding)
// in memory_embedding_chain (Cypher 25 SEARCH, $fetch_k hits per point), then the visible keys
// (which leave out those under erasure), the layer and retraction filters and the best $k, with
// each hit's session and, when the query names someone, its person cues. Scopes that see no more
// than $exact_below memories skip the index (the exact scan answers them).
// part: vector
// in: visible, population
// out: approx = []
CALL (visible, population) {
  UNWIND CASE WHEN NOT $directed OR population <= $exact_below THEN [] ELSE [at IN $chain WHERE at <> ''] END AS at
  CALL (at) {
    MATCH (m:Memory)
      SEARCH m IN (VECTOR INDEX memory_embedding_chain FOR $vector WHERE m.scope_lo <= at AND m.scope_hi > at LIMIT $fetch_k)
      SCORE AS score
    RETURN m AS node, score
  }
  WITH node, score
  WHERE node.scope_key IN visible AND ($layers IS NULL OR node.layer IN $layers) AND NOT coalesce(node.retracted, false)
  WITH node, score
  ORDER BY score DESC, node.id
  LIMIT $k
  RETURN collect({id: node.id, cosine: score, session_id: node.session_id,
                  persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                               ELSE [(node)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS approx
}
