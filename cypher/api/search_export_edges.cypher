// A batch of the edges written in a subtree's scopes, by id ($after_id: last id, or null).
MATCH (a:Memory)-[r]->(b:Memory)
WHERE (r.scope_key = $key OR r.scope_key STARTS WITH $prefix)
  AND ($after_id IS NULL OR r.id > $after_id)
RETURN r {.*, relationship: type(r), source: a.id, target: b.id} AS r
ORDER BY r.id
LIMIT $limit
