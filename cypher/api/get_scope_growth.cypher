// Memories created per UTC day since $since in a scope's subtree ($key exactly or $prefix).
MATCH (m:Memory)
WHERE (m.scope_key = $key OR m.scope_key STARTS WITH $prefix) AND m.created_at >= $since
WITH toInteger(floor(m.created_at / 86400.0)) AS day, count(m) AS created
RETURN day, created
ORDER BY day
