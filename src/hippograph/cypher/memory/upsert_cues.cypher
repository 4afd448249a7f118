// Link memories of one scope to their cues (shared per scope, created on first use).
// $rows: {id, cues: [{kind, key, name}]}.
MATCH (s:Scope {key: $scope_key})
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.scope_key = $scope_key
UNWIND row.cues AS cue
MERGE (c:Cue {scope_key: $scope_key, kind: cue.kind, key: cue.key})
  ON CREATE SET c.name = cue.name, c.created_at = $now
MERGE (c)-[:IN_SCOPE]->(s)
MERGE (m)-[:HAS_CUE]->(c)
