// transaction: write
// Erase the API keys bound to a scope or below it (with the scope's erase: a key of an erased
// tenant must not open a scope re-created under the same key). $scope_key, $subtree_prefix.
MATCH (k:ApiKey)
WHERE k.scope_key = $scope_key OR k.scope_key STARTS WITH $subtree_prefix
DETACH DELETE k
RETURN count(k) AS deleted
