// Clear one layer of exactly this scope (optionally one session).
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key, layer)
WHERE m.scope_key = $scope_key AND m.layer = $layer
  AND ($session_id IS NULL OR m.session_id = $session_id)
DETACH DELETE m
RETURN count(*) AS deleted
