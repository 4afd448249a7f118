// transaction: write
// Phase 12 — procedural_promotion, the write: each candidate becomes a DRAFT procedural memory
// (status draft, active false — a person approves it or not) whose id derives from scope and
// action, DERIVED_FROM the events that showed the pattern. $rows: {id, scope_key, props,
// evidence_ids}. The embedding is written once, as float32 (as upsert_nodes stores memories).
CYPHER replan=skip
UNWIND $rows AS row
MATCH (s:Scope {key: row.scope_key})
WITH s, row, row.props AS props
MERGE (p:Memory {id: row.id})
  ON CREATE SET p = props {.*, embedding: null}, p:Procedural, p._created_by_run = $run_id
MERGE (p)-[:IN_SCOPE]->(s)
WITH row, p, p._created_by_run = $run_id AS created
REMOVE p._created_by_run
WITH row, p, created
CALL (row, p, created) {
  WITH row, p, created
  WHERE created AND row.props.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(p, 'embedding', row.props.embedding)
}
CALL (row, p) {
  UNWIND row.evidence_ids AS id
  MATCH (e:Memory:Episodic {id: id})
  MERGE (p)-[r:DERIVED_FROM {scope_key: row.scope_key}]->(e)
    ON CREATE SET r.id = randomUUID(), r.weight = 1.0, r.provenance = 'synthetic', r.uses = 0,
                  r.created_at = $now, r.source_episodic_ids = [id]
  RETURN count(*) AS evidence
}
RETURN sum(CASE WHEN created THEN 1 ELSE 0 END) AS drafts, sum(evidence) AS evidence_edges
