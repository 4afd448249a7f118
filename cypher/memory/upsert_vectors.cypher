// Vector-store view of the memory graph: set embeddings (and text) on memories of the scope,
// creating them when missing. $rows: {id, layer_label, props}. Embeddings are stored as
// float32 arrays, as upsert_nodes stores them.
MATCH (s:Scope {key: $scope_key})
UNWIND $rows AS row
MERGE (m:Memory {id: row.id})
  ON CREATE SET m = row.props, m:$(row.layer_label)
  ON MATCH SET m.embedding = CASE WHEN m.scope_key = $scope_key THEN row.props.embedding ELSE m.embedding END,
               m.updated_at = CASE WHEN m.scope_key = $scope_key THEN row.props.updated_at ELSE m.updated_at END
MERGE (m)-[:IN_SCOPE]->(s)
WITH row, m
CALL (row, m) {
  WITH row, m
  WHERE m.scope_key = $scope_key AND row.props.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'embedding', row.props.embedding)
}
RETURN row.id AS id, m.scope_key = $scope_key AS ours
