MATCH (s:Scope {key: $scope_key})
UNWIND $rows AS row
MERGE (m:Memory {id: row.id})
  ON CREATE SET m = row.props, m:$(row.layer_label), m._created_by_tx = $tx_token
WITH s, row, m, m._created_by_tx = $tx_token AS created
FOREACH (_ IN CASE WHEN created THEN [1] ELSE [] END |
  CREATE (m)-[:IN_SCOPE]->(s)
  REMOVE m._created_by_tx)
RETURN row.id AS id, created, m.scope_key = $scope_key AS ours
