// The memories of one layer in exactly one scope (never its ancestors'), not retracted: one
// seek on the (scope_key, layer) index, however many memories the ancestors hold. Working
// memory and pending triggers read this on every agent turn.
MATCH (m:Memory)
WHERE m.scope_key = $scope_key
  AND m.layer = $layer
  AND NOT coalesce(m.retracted, false)
RETURN m {.*, embedding: null} AS m
ORDER BY m.created_at DESC, m.id
