// transaction: read
// How many live memories of a layer exactly this scope holds (optionally one session).
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key, layer)
WHERE m.scope_key = $scope_key AND m.layer = $layer
  AND ($session_id IS NULL OR m.session_id = $session_id)
  AND NOT coalesce(m.retracted, false)
RETURN count(m) AS count
