// transaction: write
// Create memories in one scope with their cues, idempotent by id, in one statement.
// $rows: {id, layer_label, props, cues: [index into $cues]}; $cues: the batch's distinct cues
// {kind, key, name}, so each cue is merged once per batch, not once per memory that has it.
// Returns each row's id, whether this call created it, and whether it belongs to the caller's
// scope ("ours"): an id already used in another scope is reported, never overwritten, and
// then no cue is written (the caller rolls the transaction back). Only memories this call
// created get cues; cues are shared per scope, created on first use and hung off the scope.
// The cue_key constraint makes that MERGE take a lock, so concurrent writers of a new cue meet
// on one node; cues are merged in (kind, key) order, so two writers never wait on each other's
// cues in opposite orders.
// $tx_token marks what this call created (removed in the same statement, so never stored; a
// node this call created has no IN_SCOPE yet: CREATE, not MERGE). $now: the cues' created_at.
// Embeddings are stored as float32 arrays (db.create.setNodeVectorProperty), written once (not
// first as the double[] of the props map): the vector index
// keeps float32 anyway, a cosine moves by at most a float32 rounding, and reading a float[]
// costs half a double[] — recall's exact scan reads every visible memory's embedding.
MATCH (s:Scope {key: $scope_key})
CALL (s) {
  UNWIND $rows AS row
  WITH s, row, row.props AS props
  MERGE (m:Memory {id: row.id})
    ON CREATE SET m = props {.*, embedding: null}, m:$(row.layer_label), m._created_by_tx = $tx_token
  WITH s, row, m, m._created_by_tx = $tx_token AS created
  CALL (m, row, created) {
    WITH m, row, created
    WHERE created AND row.props.embedding IS NOT NULL
    CALL db.create.setNodeVectorProperty(m, 'embedding', row.props.embedding)
  }
  FOREACH (_ IN CASE WHEN created THEN [1] ELSE [] END |
    CREATE (m)-[:IN_SCOPE]->(s)
    REMOVE m._created_by_tx)
  RETURN collect({id: row.id, created: created, ours: m.scope_key = $scope_key, m: m, cues: row.cues}) AS written
}
CALL (s, written) {
  WITH s, written
  WHERE all(w IN written WHERE w.ours)
  UNWIND written AS w
  WITH s, w
  WHERE w.created
  UNWIND w.cues AS i
  WITH s, i, collect(w.m) AS members
  WITH s, members, $cues[i] AS cue
  ORDER BY cue.kind, cue.key
  MERGE (c:Cue {scope_key: $scope_key, kind: cue.kind, key: cue.key})
    ON CREATE SET c.name = cue.name, c.created_at = $now, c._created_by_tx = $tx_token
  FOREACH (_ IN CASE WHEN c._created_by_tx = $tx_token THEN [1] ELSE [] END |
    CREATE (c)-[:IN_SCOPE]->(s)
    REMOVE c._created_by_tx)
  WITH c, members
  UNWIND members AS m
  CREATE (m)-[:HAS_CUE]->(c)
}
UNWIND written AS w
RETURN w.id AS id, w.created AS created, w.ours AS ours
