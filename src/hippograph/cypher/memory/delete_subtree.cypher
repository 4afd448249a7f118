// Erase a scope and everything below it — memories, their edges, the scope nodes — in one
// statement, so no concurrent write can land between a lookup and the delete.
OPTIONAL MATCH (root:Scope {key: $scope_key})
OPTIONAL MATCH (root)<-[:PARENT*0..]-(d:Scope)
OPTIONAL MATCH (d)<-[:IN_SCOPE]-(m:Memory)
WITH collect(DISTINCT d) AS scopes, collect(DISTINCT m) AS memories
FOREACH (m IN memories | DETACH DELETE m)
FOREACH (d IN scopes | DETACH DELETE d)
RETURN size(memories) AS deleted
