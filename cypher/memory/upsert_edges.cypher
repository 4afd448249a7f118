// transaction: write
// Insert edges or, when (scope, source, target, relationship) exists, add to its weight and
// keep its id. Both ends must be visible from the scope. $increment: 1.0 for upsert,
// 0.0 for add (create-if-absent).
UNWIND $rows AS row
MATCH (a:Memory {id: row.source}), (b:Memory {id: row.target})
  USING INDEX SEEK a:Memory(id) USING INDEX SEEK b:Memory(id)
WHERE a.scope_key IN $visible AND b.scope_key IN $visible
MERGE (a)-[r:$(row.relationship) {scope_key: $scope_key}]->(b)
  ON CREATE SET r += row.props
  ON MATCH SET r.weight = r.weight + $increment,
               r.source_episodic_ids = (coalesce(r.source_episodic_ids, [])
                 + [x IN row.props.source_episodic_ids
                    WHERE NOT x IN coalesce(r.source_episodic_ids, [])])[..20]
RETURN r {.*, relationship: type(r), source: a.id, target: b.id} AS r
