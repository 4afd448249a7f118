// transaction: write
// Phase 12 — procedural_promotion, the merge: a recurring action that duplicates an existing
// DRAFT of the same scope joins it — new properties (union of steps and evidence, occurrences),
// DERIVED_FROM its new events — and leaves an audit entry (actor consolidation). A draft that
// was approved, rejected or retracted meanwhile is left alone. $rows: {id, scope_key,
// properties (JSON), evidence_ids, audit (flat audit entry)}.
CYPHER replan=skip
UNWIND $rows AS row
MATCH (p:Memory:Procedural {id: row.id})
WHERE p.scope_key = row.scope_key AND NOT coalesce(p.retracted, false)
  AND p.properties CONTAINS '"status": "draft"'
SET p.properties = row.properties, p.updated_at = $now
WITH row, p
CALL (row, p) {
  UNWIND row.evidence_ids AS id
  MATCH (e:Memory:Episodic {id: id})
  MERGE (p)-[r:DERIVED_FROM {scope_key: row.scope_key}]->(e)
    ON CREATE SET r.id = randomUUID(), r.weight = 1.0, r.provenance = 'synthetic', r.uses = 0,
                  r.created_at = $now, r.source_episodic_ids = [id]
  RETURN count(*) AS evidence
}
MATCH (s:Scope {key: row.scope_key})
MERGE (a:AuditEntry {id: row.audit.id})
  ON CREATE SET a = row.audit
MERGE (a)-[:IN_SCOPE]->(s)
RETURN count(p) AS merged, sum(evidence) AS evidence_edges
