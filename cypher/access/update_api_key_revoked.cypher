// transaction: write
// Revoke a key by id (kept, so the audit of who used it survives). $id, $now.
MATCH (k:ApiKey {id: $id})
SET k.revoked_at = coalesce(k.revoked_at, $now)
RETURN k {.id, .name, .scope_key, .role, .rate_limit, .created_at, .revoked_at, .last_used_at} AS key
