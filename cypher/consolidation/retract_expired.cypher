// transaction: autocommit
// Phase 9.2 — expire_durability: soft-retracts memories of the subtree that are marked expired,
// transient and older than $transient_ttl, or past their valid_until. $retractions maps each
// rule to its retraction JSON. A memory a person restored is not retracted again. A superseded
// version is history, not an expired memory: its valid_until records when it stopped being
// current, and it is kept (out of recall, in history) — never retracted here.
CYPHER replan=skip
MATCH (m:Memory)
WHERE m.scope_key STARTS WITH $scope_key
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND NOT coalesce(m.retracted, false)
  AND m._restored_at IS NULL
  AND m.superseded_by IS NULL
WITH m, CASE
  WHEN m.durability = 'expired' THEN 'expired'
  WHEN m.durability = 'transient' AND m.created_at + $transient_ttl <= $now THEN 'transient'
  WHEN m.valid_until IS NOT NULL AND m.valid_until <= $now THEN 'valid_until'
END AS rule
WHERE rule IS NOT NULL
CALL (m, rule) {
  SET m.retracted = true, m.retracted_at = $now, m.retraction = $retractions[rule]
} IN TRANSACTIONS OF $batch ROWS
RETURN count(*) AS retracted,
       sum(CASE rule WHEN 'expired' THEN 1 ELSE 0 END) AS expired,
       sum(CASE rule WHEN 'transient' THEN 1 ELSE 0 END) AS transient,
       sum(CASE rule WHEN 'valid_until' THEN 1 ELSE 0 END) AS past_valid_until
