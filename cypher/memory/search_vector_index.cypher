// Approximate top-k from the vector index, then the scope filter. The caller widens
// $fetch_k or falls back to the exact scan when fewer than $k visible hits come back.
CALL db.index.vector.queryNodes('memory_embedding', $fetch_k, $vector) YIELD node, score
WHERE node.scope_key IN $visible
  AND ($layers IS NULL OR node.layer IN $layers)
  AND NOT coalesce(node.retracted, false)
RETURN node.id AS id, score
ORDER BY score DESC, id
LIMIT $k
