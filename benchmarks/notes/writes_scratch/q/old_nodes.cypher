// Create memories in one scope, idempotent by id. $rows: {id, layer_label, props}.
// Returns each row's node and whether it belongs to the caller's scope ("ours"):
// an id already used in another scope is reported, never overwritten.
MATCH (s:Scope {key: $scope_key})
UNWIND $rows AS row
MERGE (m:Memory {id: row.id})
  ON CREATE SET m = row.props, m:$(row.layer_label), m._created_by_tx = $tx_token
WITH s, row, m, m._created_by_tx = $tx_token AS created
FOREACH (_ IN CASE WHEN created THEN [1] ELSE [] END |
  MERGE (m)-[:IN_SCOPE]->(s)
  REMOVE m._created_by_tx)
RETURN row.id AS id, created, m.scope_key = $scope_key AS ours,
       m.scope_key AS scope_key
