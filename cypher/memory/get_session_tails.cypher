// transaction: read
// The latest memory of a layer in each of several sessions of exactly this scope (to extend
// their chains), in one round trip. $session_ids: list; one row per session that has one.
UNWIND $session_ids AS session_id
CALL (session_id) {
  MATCH (m:Memory) USING INDEX SEEK m:Memory(session_id)
  WHERE m.scope_key = $scope_key AND m.layer = $layer AND m.session_id = session_id
    AND NOT coalesce(m.retracted, false)
  RETURN m {.*, embedding: null} AS m
  ORDER BY coalesce(m.occurred_at, m.created_at) DESC, m.created_at DESC
  LIMIT 1
}
RETURN session_id, m
