// transaction: write
// Soft-retract an owned memory with its reason (restorable until pruned).
MATCH (m:Memory {id: $id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix
SET m.retracted = true, m.retracted_at = $now, m.retraction = $retraction, m.updated_at = $now
RETURN m.id AS id
