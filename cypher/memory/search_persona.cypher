// transaction: read
// What a scope sees of the persona, in one round trip: the visible semantic memories whose
// label starts with $prefix (the SOUL:<name> profiles) and those labelled $identity
// (AGENT_IDENTITY), each the newest $limit, not retracted. Seeks on the (scope_key, label)
// index per visible scope: the persona's few nodes, however many facts the scope holds.
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
CALL (visible) {
  MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key, label)
  WHERE m.scope_key IN visible
    AND m.layer = $layer
    AND m.label STARTS WITH $prefix
    AND NOT coalesce(m.retracted, false)
  RETURN m
  ORDER BY m.created_at DESC, m.id
  LIMIT $limit
  UNION ALL
  MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key, label)
  WHERE m.scope_key IN visible
    AND m.layer = $layer
    AND m.label = $identity
    AND NOT coalesce(m.retracted, false)
  RETURN m
  ORDER BY m.created_at DESC, m.id
  LIMIT $limit
}
RETURN m {.*, embedding: null} AS m
