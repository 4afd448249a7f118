// transaction: read
// One breadth-first step: the visible, not yet seen neighbours of $frontier.
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
UNWIND $frontier AS id
MATCH (m:Memory {id: id})-[r]-(n:Memory) USING INDEX SEEK m:Memory(id)
WHERE n.scope_key IN visible AND r.scope_key IN visible
  AND NOT n.id IN $seen
  AND NOT coalesce(n.retracted, false)
RETURN DISTINCT n {.*, embedding: null} AS n
