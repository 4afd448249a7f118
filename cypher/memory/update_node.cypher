// $props were validated against the model; only owned memories (scope or subtree) change.
MATCH (m:Memory {id: $id})
WHERE m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix
SET m += $props
RETURN m {.*, embedding: null} AS m
