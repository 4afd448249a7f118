// transaction: autocommit
// Phase 9 — decay_importance: semantic memories of the subtree idle for more than $idle seconds
// lose $step importance (not below $floor), at most once per $interval (_decayed_at).
// Exempt: importance >= $exempt_from, SOUL: and AGENT_IDENTITY memories.
CYPHER replan=skip
MATCH (m:Memory:Semantic)
WHERE m.scope_key STARTS WITH $scope_key AND m.layer = 'semantic'  // the (scope_key, layer) index
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND NOT coalesce(m.retracted, false)
  AND coalesce(m.importance, 5.0) < $exempt_from
  AND NOT m.label STARTS WITH 'SOUL:' AND NOT m.label STARTS WITH 'AGENT_IDENTITY'
  AND $now - coalesce(m.last_accessed_at, m.updated_at, m.created_at) > $idle
  AND (m._decayed_at IS NULL OR $now - m._decayed_at >= $interval)
CALL (m) {
  WITH m, coalesce(m.importance, 5.0) AS before
  SET m.importance = CASE WHEN before - $step < $floor THEN $floor ELSE before - $step END,
      m._decayed_at = $now
  RETURN CASE WHEN m.importance < before THEN 1 ELSE 0 END AS lowered
} IN TRANSACTIONS OF $batch ROWS
RETURN coalesce(sum(lowered), 0) AS decayed
