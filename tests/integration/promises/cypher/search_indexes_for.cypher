// Test inspection: what the vector index and the fulltext index still return for a vector
// and a Lucene query, across every scope (no visibility filter). $vector_index: the vector
// index's name on this server (ServerCapabilities.vector_index).
CALL () {
  CALL db.index.vector.queryNodes($vector_index, 100, $vector) YIELD node
  RETURN node.id AS id
  UNION
  CALL db.index.fulltext.queryNodes('memory_text', $lucene) YIELD node
  RETURN node.id AS id
}
RETURN collect(id) AS ids
