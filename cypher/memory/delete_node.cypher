// transaction: write
// Deletes an owned memory (scope or subtree). Without $cascade a memory that still has
// memory edges is kept and reported, so nothing is half-deleted.
// A deleted memory's keys ((:Key)-[:KEY_OF]->) go with it.
MATCH (m:Memory {id: $id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix
OPTIONAL MATCH (m)-[r]-(:Memory)
WITH m, count(r) AS edges
CALL (m, edges) {
  WITH m, edges WHERE $cascade OR edges = 0
  FOREACH (k IN COLLECT { MATCH (k:Key)-[:KEY_OF]->(m) RETURN k } | DETACH DELETE k)
  DETACH DELETE m
  RETURN true AS deleted
  UNION
  WITH m, edges WHERE NOT ($cascade OR edges = 0)
  RETURN false AS deleted
}
RETURN deleted, edges
