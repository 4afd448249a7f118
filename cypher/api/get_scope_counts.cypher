// transaction: read
// Memory counts per layer for many scopes at once. $scopes: [{key, prefix}] with prefix null
// (the scope's own memories) or the scope's subtree prefix (its whole subtree).
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
UNWIND $scopes AS s
OPTIONAL MATCH (m:Memory)
WHERE (m.scope_key = s.key OR (s.prefix IS NOT NULL AND m.scope_key STARTS WITH s.prefix))
  AND none(gone IN erasing WHERE m.scope_key = gone OR m.scope_key STARTS WITH gone + '/')
WITH s, m.layer AS layer, count(m) AS total,
     sum(CASE WHEN coalesce(m.retracted, false) THEN 1 ELSE 0 END) AS retracted,
     sum(CASE WHEN m.superseded_by IS NOT NULL THEN 1 ELSE 0 END) AS superseded
RETURN s.key AS key, collect({layer: layer, total: total, retracted: retracted, superseded: superseded}) AS layers
