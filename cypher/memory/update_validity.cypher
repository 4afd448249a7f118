// transaction: write
// Renew memories with a ttl: valid_until becomes $now + their own ttl (seconds). Only owned
// memories (scope or subtree) that are current, not retracted and still valid at $now: one
// already past its valid_until stays expired. updated_at does not move (a renewal is a read).
UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
WHERE (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND m.ttl IS NOT NULL
  AND m.superseded_by IS NULL AND NOT coalesce(m.retracted, false)
  AND (m.valid_until IS NULL OR m.valid_until > $now)
SET m.valid_until = $now + m.ttl
RETURN count(m) AS renewed
