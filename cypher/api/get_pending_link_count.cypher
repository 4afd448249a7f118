// Inferred links waiting for consolidation in a scope's subtree ($key exactly or $prefix).
MATCH (p:PendingLink)
WHERE p.scope_key = $key OR p.scope_key STARTS WITH $prefix
RETURN count(p) AS pending
