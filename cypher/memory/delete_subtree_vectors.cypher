// transaction: write
MATCH (:Scope {key: $scope_key})<-[:PARENT*0..]-(:Scope)<-[:IN_SCOPE]-(m:Memory)
WHERE m.embedding IS NOT NULL
REMOVE m.embedding
RETURN count(m) AS removed
