// transaction: read
// Inferred links waiting for consolidation in a scope's subtree ($key exactly or $prefix).
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (p:PendingLink)
WHERE (p.scope_key = $key OR p.scope_key STARTS WITH $prefix)
  AND none(gone IN erasing WHERE p.scope_key = gone OR p.scope_key STARTS WITH gone + '/')
RETURN count(p) AS pending
