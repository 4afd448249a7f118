// transaction: read
// Audit entries about each memory id, newest first, at most $limit each; only entries of
// scopes within reach ($keys / $prefix).
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
UNWIND $ids AS id
MATCH (a:AuditEntry {target: id})
WHERE (a.scope_key IN $keys OR ($prefix IS NOT NULL AND a.scope_key STARTS WITH $prefix))
  AND none(gone IN erasing WHERE a.scope_key = gone OR a.scope_key STARTS WITH gone + '/')
WITH id, a
ORDER BY a.at DESC, a.id DESC
RETURN id, collect(a {.*})[..$limit] AS entries
