// Memory counts per layer for many scopes at once. $scopes: [{key, prefix}] with prefix null
// (the scope's own memories) or the scope's subtree prefix (its whole subtree).
UNWIND $scopes AS s
OPTIONAL MATCH (m:Memory)
WHERE m.scope_key = s.key OR (s.prefix IS NOT NULL AND m.scope_key STARTS WITH s.prefix)
WITH s, m.layer AS layer, count(m) AS total,
     sum(CASE WHEN coalesce(m.retracted, false) THEN 1 ELSE 0 END) AS retracted,
     sum(CASE WHEN m.superseded_by IS NOT NULL THEN 1 ELSE 0 END) AS superseded
RETURN s.key AS key, collect({layer: layer, total: total, retracted: retracted, superseded: superseded}) AS layers
