// transaction: read
// API keys, oldest first, never their hash. $prefix: null for all, else keys bound to a scope
// whose key equals $scope_key or starts with $prefix. $include_revoked: bool.
MATCH (k:ApiKey)
WHERE ($prefix IS NULL OR k.scope_key = $scope_key OR k.scope_key STARTS WITH $prefix)
  AND ($include_revoked OR k.revoked_at IS NULL)
RETURN k {.id, .name, .scope_key, .role, .rate_limit, .created_at, .revoked_at, .last_used_at} AS key
ORDER BY k.created_at, k.id
