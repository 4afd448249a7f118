// transaction: read
// Memories created per UTC day since $since in a scope's subtree ($key exactly or $prefix).
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (m:Memory)
WHERE (m.scope_key = $key OR m.scope_key STARTS WITH $prefix) AND m.created_at >= $since
  AND none(gone IN erasing WHERE m.scope_key = gone OR m.scope_key STARTS WITH gone + '/')
WITH toInteger(floor(m.created_at / 86400.0)) AS day, count(m) AS created
RETURN day, created
ORDER BY day
