// transaction: read
// The current (not superseded, not retracted) fact of a subject key in exactly this scope.
MATCH (m:Memory)
WHERE m.scope_key = $scope_key AND m.layer = 'semantic' AND m.key = $key
  AND m.superseded_by IS NULL AND NOT coalesce(m.retracted, false)
RETURN m {.*, embedding: null} AS m
ORDER BY m.created_at DESC
LIMIT 1
