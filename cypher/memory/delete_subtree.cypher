// Erase a scope and everything below it — memories and their edges, cues, pending links,
// every node hanging off the scopes (IN_SCOPE, RAN_IN), the scope nodes — in one statement, so no
// concurrent write can land between a lookup and the delete. Returns the memory count.
OPTIONAL MATCH (root:Scope {key: $scope_key})
OPTIONAL MATCH (root)<-[:PARENT*0..]-(d:Scope)
OPTIONAL MATCH (d)<-[:IN_SCOPE|RAN_IN]-(x)
WITH collect(DISTINCT d) AS scopes, collect(DISTINCT x) AS owned
WITH scopes, owned, size([x IN owned WHERE x:Memory]) AS memories
FOREACH (x IN owned | DETACH DELETE x)
FOREACH (d IN scopes | DETACH DELETE d)
RETURN memories AS deleted
