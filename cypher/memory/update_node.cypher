// $props were validated against the model; only owned memories (scope or subtree) change.
MATCH (m:Memory {id: $id})
WHERE m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix
SET m += $props
WITH m
CALL (m) {
  WITH m
  WHERE $props.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'embedding', $props.embedding)  // float32, as upsert_nodes stores it
}
RETURN m {.*, embedding: null} AS m
