// The child scopes of a scope, by key, keyset-paged ($after: last key seen, or null).
MATCH (c:Scope)-[:PARENT]->(:Scope {key: $key})
WHERE $after IS NULL OR c.key > $after
RETURN c {.key, .kind, .id, .depth} AS scope
ORDER BY c.key
LIMIT $limit
