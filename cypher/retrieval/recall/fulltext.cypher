// The fulltext channel: BM25 over search_text inside the visible scopes and layers ($lucene
// carries the escaped terms and the zero-boost scope / layer filter, see retrieval/lucene.py;
// blank: no fulltext), the best $k live memories, each with its cosine to the query (none when
// the query has no direction), session and person cues.
// part: fulltext
// in: visible
// out: text_own = []
CALL (visible) {
  UNWIND CASE WHEN trim($lucene) = '' THEN [] ELSE [1] END AS _
  CALL db.index.fulltext.queryNodes('memory_text', $lucene) YIELD node, score
  WHERE node.scope_key IN visible AND NOT coalesce(node.retracted, false)
  WITH node, score
  LIMIT $k
  RETURN collect({id: node.id, score: score,
                  cosine: CASE WHEN node.embedding IS NULL OR NOT $directed THEN null
                               ELSE vector.similarity.cosine(node.embedding, $vector) END,
                  session_id: node.session_id,
                  persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                               ELSE [(node)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS text_own
}
