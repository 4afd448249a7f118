// The scopes a key acts on: the scope $key itself and every scope whose key starts with
// $prefix ("" in development mode: every scope), in key order, keyset-paged ($after: the
// last key seen, or null).
MATCH (s:Scope)
WHERE (s.key = $key OR s.key STARTS WITH $prefix) AND ($after IS NULL OR s.key > $after)
RETURN s {.key, .kind, .id, .depth} AS scope
ORDER BY s.key
LIMIT $limit
