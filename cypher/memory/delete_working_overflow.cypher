// Keep the newest $keep working memories of exactly this scope (FIFO); delete the rest.
MATCH (m:Memory)
WHERE m.scope_key = $scope_key AND m.layer = 'working'
WITH m ORDER BY m.created_at DESC, m.id DESC
SKIP $keep
DETACH DELETE m
RETURN count(*) AS deleted
