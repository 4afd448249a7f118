// transaction: autocommit
// Phase 1.5 — co-occurrence, the write: one CO_OCCURRED edge per pair of $pairs
// ([id, id, scope key], from get_cooccurrence_pairs), in the given scope, batched. A pair that has
// its edge by now (written since the read) gets no second one.
CYPHER replan=skip
UNWIND $pairs AS pair
CALL (pair) {
  MATCH (x:Memory {id: pair[0]}) USING INDEX SEEK x:Memory(id)
  MATCH (y:Memory {id: pair[1]}) USING INDEX SEEK y:Memory(id)
  WHERE NOT EXISTS { (x)-[:CO_OCCURRED]-(y) }
  CREATE (x)-[:CO_OCCURRED {id: randomUUID(), weight: $weight, provenance: 'synthetic', uses: 0,
                            created_at: $now, source_episodic_ids: [], scope_key: pair[2]}]->(y)
  RETURN 1 AS made
} IN TRANSACTIONS OF $batch ROWS
RETURN count(made) AS edges
