// transaction: write
// Phase 5 — soul_corrections, the write: the corrected properties map of each profile.
// $rows: {id, properties (JSON), expected (the JSON read)}; a profile changed in between is
// left for the next run.
CYPHER replan=skip
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key STARTS WITH $scope_key
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND m.properties = row.expected
SET m.properties = row.properties
RETURN count(m) AS updated
