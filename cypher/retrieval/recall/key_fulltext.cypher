// The keys' fulltext channel: BM25 over the keys' text ($lucene as for the memories), the best
// $k keys whose memory is visible and live, each memory once with its best key (BM25, then
// text), with the memory's own cosine to the query, session and person cues.
// part: keys
// in: visible, keyed
// out: key_text = []
CALL (visible, keyed) {
  UNWIND CASE WHEN trim($lucene) = '' OR NOT keyed THEN [] ELSE [1] END AS _
  CALL db.index.fulltext.queryNodes('key_text', $lucene) YIELD node, score
  WHERE node.scope_key IN visible
  MATCH (node)-[:KEY_OF]->(m)
  WHERE m.scope_key IN visible AND ($layers IS NULL OR m.layer IN $layers) AND NOT coalesce(m.retracted, false)
  WITH node, m, score
  LIMIT $k
  WITH m, collect({score: score, key: node.text}) AS found
  WITH m, reduce(b = null, x IN found |
         CASE WHEN b IS NULL OR x.score > b.score OR (x.score = b.score AND x.key < b.key) THEN x ELSE b END) AS best
  RETURN collect({id: m.id, score: best.score, key: best.key,
                  cosine: CASE WHEN m.embedding IS NULL OR NOT $directed THEN null
                               ELSE vector.similarity.cosine(m.embedding, $vector) END,
                  session_id: m.session_id,
                  persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                               ELSE [(m)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS key_text
}
