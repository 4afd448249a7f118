// transaction: write
// Vector-store view of the memory graph: set embeddings (and text) on memories of the scope,
// creating them when missing. $rows: {id, layer_label, props}. Each embedding is written once,
// as a float32 array (as upsert_nodes stores it); a row without one clears the stored one of a
// memory of the scope.
MATCH (s:Scope {key: $scope_key})
UNWIND $rows AS row
WITH s, row, row.props AS props
MERGE (m:Memory {id: row.id})
  ON CREATE SET m = props {.*, embedding: null}, m:$(row.layer_label)
  ON MATCH SET m.updated_at = CASE WHEN m.scope_key = $scope_key THEN row.props.updated_at ELSE m.updated_at END
MERGE (m)-[:IN_SCOPE]->(s)
WITH row, m, m.scope_key = $scope_key AS ours
CALL (row, m, ours) {
  WITH row, m, ours
  WHERE ours AND row.props.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'embedding', row.props.embedding)
}
FOREACH (_ IN CASE WHEN ours AND row.props.embedding IS NULL THEN [1] ELSE [] END | REMOVE m.embedding)
RETURN row.id AS id, ours
