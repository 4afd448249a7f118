// transaction: autocommit
// Phase 13 — semantic_merge, the write: per pair, the absorbed fact is soft-retracted with its
// explanation ($rows.retraction JSON), the survivor keeps the higher importance (only from a
// fact of its own scope: a deeper scope's duplicate never changes what the survivor's other
// descendants see), and every
// edge of the absorbed fact (but one between the two, and CO_OCCURRED, whose degree cap a
// merge would break) is re-pointed to the survivor with its
// type, direction, scope and properties (merged into an existing twin: weights add up).
// Pairs whose facts changed state since the read are skipped. $rows: {survivor, absorbed,
// retraction}.
CYPHER replan=skip
UNWIND $rows AS row
CALL (row) {
  MATCH (s:Memory:Semantic {id: row.survivor}), (x:Memory:Semantic {id: row.absorbed})
  WHERE NOT coalesce(s.retracted, false) AND NOT coalesce(x.retracted, false)
  SET x.retracted = true, x.retracted_at = $now, x.retraction = row.retraction,
      s.importance = CASE WHEN x.scope_key = s.scope_key
                               AND coalesce(x.importance, 5.0) > coalesce(s.importance, 5.0)
                          THEN x.importance ELSE s.importance END
  WITH s, x
  CALL (s, x) {
    MATCH (x)-[r]->(o:Memory) WHERE o <> s AND type(r) <> 'CO_OCCURRED'
    WITH s, x, r, o, type(r) AS t, coalesce(r.scope_key, x.scope_key) AS key, properties(r) AS props
    MERGE (s)-[n:$(t) {scope_key: key}]->(o)
      ON CREATE SET n += props
      ON MATCH SET n.weight = n.weight + coalesce(props.weight, 0.0),
                   n.source_episodic_ids = (coalesce(n.source_episodic_ids, [])
                     + [i IN coalesce(props.source_episodic_ids, []) WHERE NOT i IN coalesce(n.source_episodic_ids, [])])[..20]
    DELETE r
    RETURN count(*) AS outgoing
  }
  CALL (s, x) {
    MATCH (o:Memory)-[r]->(x) WHERE o <> s AND type(r) <> 'CO_OCCURRED'
    WITH s, x, r, o, type(r) AS t, coalesce(r.scope_key, x.scope_key) AS key, properties(r) AS props
    MERGE (o)-[n:$(t) {scope_key: key}]->(s)
      ON CREATE SET n += props
      ON MATCH SET n.weight = n.weight + coalesce(props.weight, 0.0),
                   n.source_episodic_ids = (coalesce(n.source_episodic_ids, [])
                     + [i IN coalesce(props.source_episodic_ids, []) WHERE NOT i IN coalesce(n.source_episodic_ids, [])])[..20]
    DELETE r
    RETURN count(*) AS incoming
  }
  RETURN 1 AS merged, outgoing + incoming AS repointed
} IN TRANSACTIONS OF 1 ROWS
RETURN count(*) AS merged, coalesce(sum(repointed), 0) AS repointed
