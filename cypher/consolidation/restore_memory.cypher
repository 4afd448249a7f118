// transaction: write
// Undo a soft retraction of a memory owned by the scope (or below) while its grace period
// lasts. Returns nothing when the memory does not exist there; otherwise what it was and
// whether it is restored now. _restored_at tells later phases a person chose to keep it.
MATCH (m:Memory {id: $id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key STARTS WITH $scope_key
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
WITH m, coalesce(m.retracted, false) AS was_retracted, m.retracted_at AS retracted_at,
        m.retraction AS retraction
WITH m, was_retracted, retracted_at, retraction,
     was_retracted AND coalesce(retracted_at, 0.0) >= $now - $grace AS restorable
FOREACH (_ IN CASE WHEN restorable THEN [1] ELSE [] END |
  SET m.retracted = false, m._restored_at = $now
  REMOVE m.retracted_at, m.retraction)
RETURN m.scope_key AS scope_key, was_retracted, retracted_at, retraction, restorable AS restored
