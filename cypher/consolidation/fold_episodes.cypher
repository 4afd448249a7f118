// transaction: autocommit
// Phase 10 — episodic_summary, the write, $fold_batch chunks per inner transaction (a chunk is
// folded entirely or not at all). The summary memory is created (its id derives from the
// chunk), every edge between a folded event and a memory outside the chunk is re-pointed to
// the summary (same type, direction and scope; weights add up, the folded events join the
// edge's source_episodic_ids, in id order), CO_OCCURRED excepted; the summary SUMMARIZES the summary
// before it in that scope (row.previous); then the events are deleted.
// $rows: {id, scope_key, props, event_ids, previous}.
// A deleted memory's keys ((:Key)-[:KEY_OF]->) go with it.
CYPHER replan=skip
UNWIND $rows AS row
CALL (row) {
  MATCH (s:Scope {key: row.scope_key})
  MERGE (sum:Memory {id: row.id})
    ON CREATE SET sum = row.props, sum:Episodic
  MERGE (sum)-[:IN_SCOPE]->(s)
  WITH row, sum
  OPTIONAL MATCH (prev:Memory {id: row.previous}) USING INDEX SEEK prev:Memory(id)
  FOREACH (p IN CASE WHEN prev IS NULL THEN [] ELSE [prev] END |
    MERGE (sum)-[l:SUMMARIZES]->(p)
      ON CREATE SET l.id = randomUUID(), l.weight = 1.0, l.provenance = 'synthetic', l.uses = 0,
                    l.created_at = $now, l.source_episodic_ids = [], l.scope_key = row.scope_key)
  WITH row, sum
  CALL (row, sum) {
    MATCH (e:Memory)-[r]->(o:Memory)
    WHERE e.id IN row.event_ids AND NOT o.id IN row.event_ids AND o <> sum
      AND type(r) <> 'CO_OCCURRED'
    WITH row, sum, o, r, e ORDER BY e.id  // folded ids in one order, however the match ran
    WITH sum, o, type(r) AS t, coalesce(r.scope_key, row.scope_key) AS key, sum(r.weight) AS weight,
         max(r.provenance) AS provenance, sum(coalesce(r.uses, 0)) AS uses,
         min(r.created_at) AS created_at, collect(DISTINCT e.id) AS folded
    MERGE (sum)-[n:$(t) {scope_key: key}]->(o)
      ON CREATE SET n.id = randomUUID(), n.weight = weight, n.provenance = provenance,
                    n.uses = uses, n.created_at = created_at, n.source_episodic_ids = folded[..20]
      ON MATCH SET n.weight = n.weight + weight,
                   n.source_episodic_ids = (n.source_episodic_ids
                     + [x IN folded WHERE NOT x IN n.source_episodic_ids])[..20]
    RETURN count(*) AS outgoing
  }
  CALL (row, sum) {
    MATCH (o:Memory)-[r]->(e:Memory)
    WHERE e.id IN row.event_ids AND NOT o.id IN row.event_ids AND o <> sum
      AND type(r) <> 'CO_OCCURRED'
    WITH row, sum, o, r, e ORDER BY e.id  // folded ids in one order, however the match ran
    WITH sum, o, type(r) AS t, coalesce(r.scope_key, row.scope_key) AS key, sum(r.weight) AS weight,
         max(r.provenance) AS provenance, sum(coalesce(r.uses, 0)) AS uses,
         min(r.created_at) AS created_at, collect(DISTINCT e.id) AS folded
    MERGE (o)-[n:$(t) {scope_key: key}]->(sum)
      ON CREATE SET n.id = randomUUID(), n.weight = weight, n.provenance = provenance,
                    n.uses = uses, n.created_at = created_at, n.source_episodic_ids = folded[..20]
      ON MATCH SET n.weight = n.weight + weight,
                   n.source_episodic_ids = (n.source_episodic_ids
                     + [x IN folded WHERE NOT x IN n.source_episodic_ids])[..20]
    RETURN count(*) AS incoming
  }
  CALL (row) {
    UNWIND row.event_ids AS id
    MATCH (e:Memory:Episodic {id: id})
    FOREACH (k IN COLLECT { MATCH (k:Key)-[:KEY_OF]->(e) RETURN k } | DETACH DELETE k)
    DETACH DELETE e
    RETURN count(*) AS deleted
  }
  RETURN outgoing + incoming AS repointed, deleted
} IN TRANSACTIONS OF $fold_batch ROWS
RETURN count(*) AS summaries, coalesce(sum(repointed), 0) AS repointed,
       coalesce(sum(deleted), 0) AS folded
