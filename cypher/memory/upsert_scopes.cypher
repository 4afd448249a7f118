// transaction: write
// $scopes: root-first rows {key, kind, id, depth, name, parent_key}
UNWIND $scopes AS s
MERGE (n:Scope {key: s.key})
  ON CREATE SET n.kind = s.kind, n.id = s.id, n.depth = s.depth, n.name = s.name
WITH count(n) AS merged
UNWIND $scopes AS s
WITH s WHERE s.parent_key IS NOT NULL
MATCH (n:Scope {key: s.key}), (p:Scope {key: s.parent_key})
MERGE (n)-[:PARENT]->(p)
