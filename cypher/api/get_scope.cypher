// transaction: read
// One scope node by key.
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (s:Scope {key: $key})
WHERE none(gone IN erasing WHERE s.key = gone OR s.key STARTS WITH gone + '/')
RETURN s {.key, .kind, .id, .depth} AS scope
