// transaction: read
// Episodic events visible from the scope, in time order, optionally in a window / session.
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key, layer)
WHERE m.scope_key IN visible AND m.layer = 'episodic'
  AND NOT coalesce(m.retracted, false)
  AND ($session_id IS NULL OR m.session_id = $session_id)
  AND ($since IS NULL OR coalesce(m.occurred_at, m.created_at) >= $since)
  AND ($until IS NULL OR coalesce(m.occurred_at, m.created_at) < $until)
RETURN m {.*, embedding: null} AS m
ORDER BY coalesce(m.occurred_at, m.created_at) DESC, m.created_at DESC
SKIP $offset LIMIT $limit
