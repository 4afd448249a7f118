// transaction: read
// The scopes a key acts on: the scope $key itself and every scope whose key starts with
// $prefix ("" in development mode: every scope), in key order, keyset-paged ($after: the
// last key seen, or null).
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (s:Scope)
WHERE (s.key = $key OR s.key STARTS WITH $prefix) AND ($after IS NULL OR s.key > $after)
  AND none(gone IN erasing WHERE s.key = gone OR s.key STARTS WITH gone + '/')
RETURN s {.key, .kind, .id, .depth} AS scope
ORDER BY s.key
LIMIT $limit
