// transaction: autocommit
// Schema step 8, before key_embedding_chain: every key's chain interval (scope_lo, scope_hi),
// its memory's (step 8 gave every memory one first). Only keys without one, one transaction per
// 10,000: a crash loses at most a batch and a second run finds nothing.
MATCH (k:Key)-[:KEY_OF]->(m)
WHERE k.scope_lo IS NULL AND m.scope_lo IS NOT NULL
CALL (k, m) {
  SET k.scope_lo = m.scope_lo, k.scope_hi = m.scope_hi
} IN TRANSACTIONS OF 10000 ROWS
