// transaction: write
// $props were validated against the model; only owned memories (scope or subtree) change.
// $props never holds an embedding vector (an explicit null there clears it); $embedding, when
// not null, is the new one, written once as float32 (as upsert_nodes stores it), not first as
// the double[] a map SET would store.
MATCH (m:Memory {id: $id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix
SET m += $props
WITH m
CALL (m) {
  WITH m
  WHERE $embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'embedding', $embedding)
}
RETURN m {.*, embedding: null} AS m
