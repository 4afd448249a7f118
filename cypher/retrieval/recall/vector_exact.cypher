// The vector channel's exact answer: when the index gave fewer than $k hits (a small scope, one
// whose hits the filters removed, or an index that failed), the visible live memories scanned
// exactly; either way the channel's hits.
// part: vector
// in: visible, population, approx
// out: vector_own = approx
CALL (visible, population, approx) {
  CALL (visible, population, approx) {
    UNWIND CASE WHEN $directed AND population > 0 AND size(approx) < $k THEN [1] ELSE [] END AS _
    MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
    WHERE m.scope_key IN visible
      AND ($layers IS NULL OR m.layer IN $layers)
      AND m.embedding IS NOT NULL
      AND NOT coalesce(m.retracted, false)
    WITH m, vector.similarity.cosine(m.embedding, $vector) AS cosine
    ORDER BY cosine DESC, m.id
    LIMIT $k
    RETURN collect({id: m.id, cosine: cosine, session_id: m.session_id,
                    persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                                 ELSE [(m)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS exact
  }
  RETURN CASE WHEN size(approx) >= $k THEN approx ELSE exact END AS vector_own
}
