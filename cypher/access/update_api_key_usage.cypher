// transaction: write
// Authenticate a request and count it in the key's fixed rate window, in one write.
// $hash: sha256 of the presented token; $window: the current window's start (seconds);
// $now. Returns nothing for an unknown or revoked key. Every API worker shares this ledger.
MATCH (k:ApiKey {hash: $hash})
WHERE k.revoked_at IS NULL
SET k.rl_count = CASE WHEN k.rl_window = $window THEN k.rl_count + 1 ELSE 1 END
SET k.rl_window = $window, k.last_used_at = $now
RETURN k {.id, .name, .scope_key, .role, .rate_limit, .created_at, .revoked_at, .last_used_at} AS key,
       k.rl_count AS used
