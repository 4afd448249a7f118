// The raw global top-$fetch_k of the vector index, then the scope filter (which can starve a
// small scope): the benchmarks' floor, one index query (recall uses search_vector_scoped).
CALL db.index.vector.queryNodes('memory_embedding_scoped', $fetch_k, $vector) YIELD node, score
WHERE node.scope_key IN $visible
  AND ($layers IS NULL OR node.layer IN $layers)
  AND NOT coalesce(node.retracted, false)
RETURN node.id AS id, score
ORDER BY score DESC, id
LIMIT $k
