// The vector channel on Neo4j 5.26 (no SEARCH, and the index carries no filter property): the
// vector index's global top-k, $fetch_k × the memories / the visible ones (at most 10000),
// filtered by scope, layer and retraction afterwards; the best $k, with each hit's session and
// person cues. Scopes that see no more than $exact_below memories skip the index.
// part: vector
// in: visible, population
// out: approx = []
CALL (visible, population) {
  UNWIND CASE WHEN NOT $directed OR population <= $exact_below THEN [] ELSE [1] END AS _
  CALL () {
    MATCH (m:Memory)
    RETURN count(m) AS total
  }
  WITH CASE WHEN total <= population THEN $fetch_k
            ELSE toInteger(ceil(toFloat($fetch_k) * total / population)) END AS wanted
  CALL db.index.vector.queryNodes('memory_embedding', CASE WHEN wanted > 10000 THEN 10000 ELSE wanted END, $vector)
    YIELD node, score
  WITH node, score
  WHERE node.scope_key IN visible AND ($layers IS NULL OR node.layer IN $layers) AND NOT coalesce(node.retracted, false)
  WITH node, score
  ORDER BY score DESC, node.id
  LIMIT $k
  RETURN collect({id: node.id, cosine: score, session_id: node.session_id,
                  persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                               ELSE [(node)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS approx
}
