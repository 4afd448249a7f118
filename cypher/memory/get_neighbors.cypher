MATCH (m:Memory {id: $id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key IN $visible
MATCH (m)-[r]-(n:Memory)
WHERE n.scope_key IN $visible AND r.scope_key IN $visible
  AND ($relationship IS NULL OR type(r) = $relationship)
  AND ($include_retracted OR NOT coalesce(n.retracted, false))
RETURN n {.*, embedding: null} AS n,
       r {.*, relationship: type(r), source: startNode(r).id, target: endNode(r).id} AS r
ORDER BY r.weight DESC, n.id
LIMIT $limit
