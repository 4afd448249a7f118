// The keys' vector channel: one range search over the whole scope chain per point of $chain
// inside key_embedding_chain ('' entries are padding; see the vector fragment), the best $k keys
// whose memory is visible and live, each memory once with its best key (cosine, then text). A
// key's memory is reached from the key with no label: with one, a plan made on fresh statistics
// may scan the memories' scope-key index and join instead of following KEY_OF.
// part: keys
// in: visible, keyed
// out: key_vector = []
CALL (visible, keyed) {
  UNWIND CASE WHEN $directed AND keyed THEN [at IN $chain WHERE at <> ''] ELSE [] END AS at
  CALL (at) {
    MATCH (k:Key)
      SEARCH k IN (VECTOR INDEX key_embedding_chain FOR $vector WHERE k.scope_lo <= at AND k.scope_hi > at LIMIT $fetch_k)
      SCORE AS score
    RETURN k, score
  }
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
