// transaction: read
// The memories of one layer in exactly one scope (never its ancestors'), not retracted: one
// seek on the (scope_key, layer) index, however many memories the ancestors hold. Working
// memory and pending triggers read this on every agent turn. A scope under erasure (at or
// below an (:Erasure) marker) reads nothing: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (m:Memory)
WHERE m.scope_key = $scope_key
  AND m.layer = $layer
  AND NOT coalesce(m.retracted, false)
  AND none(gone IN erasing WHERE $scope_key = gone OR $scope_key STARTS WITH gone + '/')
RETURN m {.*, embedding: null} AS m
ORDER BY m.created_at DESC, m.id
