// Link newly created memories of one scope to their cues (shared per scope, created on
// first use and hung off the scope). $rows: {id, cues: [{kind, key, name}]}; $tx_token marks
// cues created by this call so only those get their IN_SCOPE link (no MERGE on the dense
// scope node for every row).
MATCH (s:Scope {key: $scope_key})
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.scope_key = $scope_key
UNWIND row.cues AS cue
MERGE (c:Cue {scope_key: $scope_key, kind: cue.kind, key: cue.key})
  ON CREATE SET c.name = cue.name, c.created_at = $now, c.created_by = $tx_token
CREATE (m)-[:HAS_CUE]->(c)
WITH s, c
WHERE c.created_by = $tx_token
WITH DISTINCT s, c
MERGE (c)-[:IN_SCOPE]->(s)
