// Pseudo-relevance feedback in the vector channel, off unless $feedback_weight > 0: the query's
// vector plus $feedback_weight × the mean vector of the channel's $feedback_seeds best hits
// scans the visible live memories again, and the channel becomes the best $k by cosine to that
// expanded query (with each hit's session and, when the query names someone, its person cues).
// Off, or with no hit to feed it, the channel stays as it was.
// part: feedback
// in: visible, vector_own
// out: vector_fed = vector_own
CALL (visible, vector_own) {
  CALL (visible, vector_own) {
    UNWIND CASE WHEN $directed AND $feedback_weight > 0 THEN vector_own[..$feedback_seeds] ELSE [] END AS h
    MATCH (s:Memory {id: h.id}) USING INDEX SEEK s:Memory(id)
    WHERE s.embedding IS NOT NULL
    WITH collect(s.embedding) AS vs
    WHERE size(vs) > 0
    WITH [i IN range(0, size($vector) - 1) |
           $vector[i] + $feedback_weight * reduce(t = 0.0, v IN vs | t + v[i]) / size(vs)] AS expanded
    MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
    WHERE m.scope_key IN visible
      AND ($layers IS NULL OR m.layer IN $layers)
      AND m.embedding IS NOT NULL
      AND NOT coalesce(m.retracted, false)
    WITH m, vector.similarity.cosine(m.embedding, expanded) AS cosine
    ORDER BY cosine DESC, m.id
    LIMIT $k
    RETURN collect({id: m.id, cosine: cosine, session_id: m.session_id,
                    persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                                 ELSE [(m)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS fed
  }
  RETURN CASE WHEN size(fed) > 0 THEN fed ELSE vector_own END AS vector_fed
}
