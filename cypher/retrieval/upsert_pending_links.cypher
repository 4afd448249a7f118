// transaction: write
// Inferred links left by activation for consolidation (phase 2.5 turns them into INFERRED
// edges). They hang off their scope, so erasing the scope erases them.
MATCH (s:Scope {key: $scope_key})
UNWIND $rows AS row
MERGE (p:PendingLink {scope_key: $scope_key, source: row.source, target: row.target})
  ON CREATE SET p.score = row.score, p.hops = row.hops, p.created_at = $now
  ON MATCH SET p.score = CASE WHEN row.score > p.score THEN row.score ELSE p.score END
MERGE (p)-[:IN_SCOPE]->(s)
