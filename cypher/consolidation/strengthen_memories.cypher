// transaction: autocommit
// Phase 1 — strengthen: +$step importance (capped at $max_importance) for every memory of the
// subtree seen at least $min_seen times since the last strengthen, where seen =
// access_count + $spreading_factor · spreading_access_count. The seen value is remembered in
// _strengthen_seen, so a second run finds nothing new to count.
CYPHER replan=skip
MATCH (m:Memory)
WHERE m.scope_key STARTS WITH $scope_key
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND NOT coalesce(m.retracted, false)
WITH m, coalesce(m.access_count, 0) + $spreading_factor * coalesce(m.spreading_access_count, 0) AS seen
WHERE seen - coalesce(m._strengthen_seen, 0.0) >= $min_seen
CALL (m, seen) {
  WITH m, seen, coalesce(m.importance, 5.0) AS before
  SET m.importance = CASE
        WHEN before >= $max_importance THEN before
        WHEN before + $step > $max_importance THEN $max_importance
        ELSE before + $step END,
      m._strengthen_seen = seen
  RETURN CASE WHEN m.importance > before THEN 1 ELSE 0 END AS raised
} IN TRANSACTIONS OF $batch ROWS
RETURN count(*) AS seen_again, sum(raised) AS strengthened
