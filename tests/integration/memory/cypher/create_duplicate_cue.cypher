// Test-only: what concurrent writers left before the cue uniqueness constraint — a second Cue
// node for an existing ($scope_key, $kind, $key), created $later seconds after the first and
// hung off the scope, which takes over the HAS_CUE links of the memories $moved; the memories
// $both keep their link to the first and get one to the copy too.
MATCH (c:Cue {scope_key: $scope_key, kind: $kind, key: $key})-[:IN_SCOPE]->(s:Scope)
WITH c, s LIMIT 1
CREATE (d:Cue {scope_key: c.scope_key, kind: c.kind, key: c.key, name: c.name, created_at: c.created_at + $later})
CREATE (d)-[:IN_SCOPE]->(s)
WITH c, d
CALL (c, d) {
  MATCH (m:Memory)-[r:HAS_CUE]->(c)
  WHERE m.id IN $moved
  CREATE (m)-[:HAS_CUE]->(d)
  DELETE r
}
CALL (d) {
  MATCH (m:Memory)
  WHERE m.id IN $both
  CREATE (m)-[:HAS_CUE]->(d)
}
RETURN d.created_at AS created_at
