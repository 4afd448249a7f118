// transaction: read
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
MATCH (m:Memory)
WHERE m.scope_key IN visible AND m.embedding IS NOT NULL
RETURN count(m) AS count
