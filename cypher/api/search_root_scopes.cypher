// transaction: read
// The root scopes (tenants: depth 1), by key, keyset-paged ($after: the last key seen, or
// null): the scopes a nightly consolidation of the whole database runs over.
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (s:Scope)
WHERE s.depth = 1 AND ($after IS NULL OR s.key > $after)
  AND none(gone IN erasing WHERE s.key = gone OR s.key STARTS WITH gone + '/')
RETURN s {.key, .kind, .id, .depth} AS scope
ORDER BY s.key
LIMIT $limit
