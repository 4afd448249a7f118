// The latest memory of a layer in one session of exactly this scope (to extend its chain).
MATCH (m:Memory)
WHERE m.scope_key = $scope_key AND m.layer = $layer AND m.session_id = $session_id
  AND NOT coalesce(m.retracted, false)
RETURN m {.*, embedding: null} AS m
ORDER BY coalesce(m.occurred_at, m.created_at) DESC, m.created_at DESC
LIMIT 1
