// The keys' vector channel on Neo4j 5.26, which has no key vector index: the visible keys
// scanned exactly, then as on 2026.x (the best $k keys whose memory is visible and live, each
// memory once with its best key).
// part: keys
// in: visible, keyed
// out: key_vector = []
CALL (visible, keyed) {
  UNWIND CASE WHEN $directed AND keyed THEN [1] ELSE [] END AS _
  MATCH (k:Key) USING INDEX SEEK k:Key(scope_key)
  WHERE k.scope_key IN visible AND k.embedding IS NOT NULL
  WITH k, vector.similarity.cosine(k.embedding, $vector) AS score
  MATCH (k)-[:KEY_OF]->(m)
  WHERE m.scope_key IN visible AND ($layers IS NULL OR m.layer IN $layers) AND NOT coalesce(m.retracted, false)
  WITH k, m, score
  ORDER BY score DESC, k.id
  LIMIT $k
  WITH m, collect({cosine: score, key: k.text}) AS found
  WITH m, reduce(b = null, x IN found |
         CASE WHEN b IS NULL OR x.cosine > b.cosine OR (x.cosine = b.cosine AND x.key < b.key) THEN x ELSE b END) AS best
  RETURN collect({id: m.id, cosine: best.cosine, key: best.key, session_id: m.session_id,
                  persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                               ELSE [(m)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS key_vector
}
