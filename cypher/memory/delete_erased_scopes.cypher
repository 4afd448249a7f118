// transaction: write
// Erase, step 4: the subtree's Scope nodes (nothing hangs off them any more) and the
// erase's marker.
OPTIONAL MATCH (root:Scope {key: $scope_key})
OPTIONAL MATCH (root)<-[:PARENT*0..]-(d:Scope)
WITH collect(DISTINCT d) AS scopes
FOREACH (d IN scopes | DETACH DELETE d)
WITH size(scopes) AS scopes
OPTIONAL MATCH (e:Erasure {key: $scope_key})
DELETE e
RETURN scopes
