// transaction: read
// The ids of memories of the scope or below ($scope_key, $subtree_prefix) that start with
// $prefix — how a handle shown in a prompt (the start of an id) names its memory. At most two:
// one means the handle is unambiguous.
MATCH (m:Memory) USING INDEX SEEK m:Memory(id)
WHERE m.id STARTS WITH $prefix
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
RETURN m.id AS id
ORDER BY id
LIMIT 2
