// transaction: autocommit
// Schema step 8, before memory_embedding_chain: every memory's chain interval (scope_lo,
// scope_hi) from its scope_key, as hippograph.scope.Scope.chain_lo / chain_hi give it (the
// levels joined by $separator, led by '@<namespace>' and $separator when namespaced; '/@' only
// ever opens a namespace: a level starts with a lowercase kind). Only memories without one, one
// transaction per 10,000, so a crash loses at most a batch and a second run finds nothing.
// Parameters: $separator, $end (hippograph.scope.CHAIN_SEPARATOR, CHAIN_END).
MATCH (m:Memory)
WHERE m.scope_lo IS NULL AND m.scope_key IS NOT NULL
CALL (m) {
  WITH m, split(m.scope_key, '/@') AS parts
  WITH m, CASE size(parts)
            WHEN 1 THEN replace(parts[0], '/', $separator)
            ELSE '@' + parts[1] + $separator + replace(parts[0], '/', $separator)
          END AS lo
  SET m.scope_lo = lo, m.scope_hi = lo + $end
} IN TRANSACTIONS OF 10000 ROWS
