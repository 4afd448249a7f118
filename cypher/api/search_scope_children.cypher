// transaction: read
// The child scopes of a scope, by key, keyset-paged ($after: last key seen, or null).
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (c:Scope)-[:PARENT]->(:Scope {key: $key})
WHERE ($after IS NULL OR c.key > $after)
  AND none(gone IN erasing WHERE c.key = gone OR c.key STARTS WITH gone + '/')
RETURN c {.key, .kind, .id, .depth} AS scope
ORDER BY c.key
LIMIT $limit
