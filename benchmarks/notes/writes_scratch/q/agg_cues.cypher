MATCH (s:Scope {key: $scope_key})
UNWIND $cues AS cue
MERGE (c:Cue {scope_key: $scope_key, kind: cue.kind, key: cue.key})
  ON CREATE SET c.name = cue.name, c.created_at = $now, c.created_by = $tx_token
FOREACH (_ IN CASE WHEN c.created_by = $tx_token THEN [1] ELSE [] END |
  MERGE (c)-[:IN_SCOPE]->(s))
WITH collect(c) AS cs
UNWIND $links AS link
MATCH (m:Memory {id: link.id})
WITH m, cs[link.cue] AS c
CREATE (m)-[:HAS_CUE]->(c)
