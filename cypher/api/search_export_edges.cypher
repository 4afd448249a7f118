// transaction: read
// A batch of the edges written in a subtree's scopes, by id ($after_id: last id, or null).
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (a:Memory)-[r]->(b:Memory)
WHERE (r.scope_key = $key OR r.scope_key STARTS WITH $prefix)
  AND none(gone IN erasing WHERE r.scope_key = gone OR r.scope_key STARTS WITH gone + '/')
  AND none(gone IN erasing WHERE a.scope_key = gone OR a.scope_key STARTS WITH gone + '/')
  AND none(gone IN erasing WHERE b.scope_key = gone OR b.scope_key STARTS WITH gone + '/')
  AND ($after_id IS NULL OR r.id > $after_id)
RETURN r {.*, relationship: type(r), source: a.id, target: b.id} AS r
ORDER BY r.id
LIMIT $limit
