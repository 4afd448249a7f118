// transaction: write
// Phase 4 — meta_nodes, the write: one META:<prefix> memory per cluster (id derived from scope
// and prefix, so a cluster is made once), linked by CLUSTERS to its members until it has
// $max_edges of them. $rows: {id, scope_key, props, member_ids}.
CYPHER replan=skip
UNWIND $rows AS row
MATCH (s:Scope {key: row.scope_key})
MERGE (meta:Memory {id: row.id})
  ON CREATE SET meta = row.props, meta:Semantic, meta._created_by_run = $run_id
MERGE (meta)-[:IN_SCOPE]->(s)
WITH row, meta, meta._created_by_run = $run_id AS created
REMOVE meta._created_by_run
WITH row, meta, created, COUNT { (meta)-[:CLUSTERS]->(:Memory) } AS have
CALL (row, meta, have) {
  UNWIND range(0, size(row.member_ids) - 1) AS i
  MATCH (x:Memory {id: row.member_ids[i]}) USING INDEX SEEK x:Memory(id)
  WHERE NOT EXISTS { (meta)-[:CLUSTERS]->(x) }
  WITH x ORDER BY i
  WITH collect(x) AS fresh
  UNWIND fresh[..CASE WHEN $max_edges - have < 0 THEN 0 ELSE $max_edges - have END] AS x
  CREATE (meta)-[:CLUSTERS {id: randomUUID(), weight: 1.0, provenance: 'synthetic', uses: 0,
                            created_at: $now, source_episodic_ids: [],
                            scope_key: row.scope_key}]->(x)
  RETURN count(*) AS linked
}
RETURN sum(CASE WHEN created THEN 1 ELSE 0 END) AS metas, sum(linked) AS edges
