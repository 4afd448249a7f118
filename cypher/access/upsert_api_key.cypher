// transaction: write
// Store a new API key. $key: {id, name, hash, scope_key, role, rate_limit, created_at}.
// Only the sha256 of the token is stored; idempotent by id.
MERGE (k:ApiKey {id: $key.id})
  ON CREATE SET k = $key
RETURN k {.id, .name, .scope_key, .role, .rate_limit, .created_at, .revoked_at, .last_used_at} AS key
