// Test inspection: what the vector index and the fulltext index still return for a vector
// and a Lucene query, across every scope (no visibility filter).
CALL () {
  CALL db.index.vector.queryNodes('memory_embedding_scoped', 100, $vector) YIELD node
  RETURN node.id AS id
  UNION
  CALL db.index.fulltext.queryNodes('memory_text', $lucene) YIELD node
  RETURN node.id AS id
}
RETURN collect(id) AS ids
