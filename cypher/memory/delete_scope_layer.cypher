// Clear one layer of exactly this scope (optionally one session).
MATCH (m:Memory)
WHERE m.scope_key = $scope_key AND m.layer = $layer
  AND ($session_id IS NULL OR m.session_id = $session_id)
DETACH DELETE m
RETURN count(*) AS deleted
