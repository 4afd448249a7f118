// Audit entries about each memory id, newest first, at most $limit each; only entries of
// scopes within reach ($keys / $prefix).
UNWIND $ids AS id
MATCH (a:AuditEntry {target: id})
WHERE a.scope_key IN $keys OR ($prefix IS NOT NULL AND a.scope_key STARTS WITH $prefix)
WITH id, a
ORDER BY a.at DESC, a.id DESC
RETURN id, collect(a {.*})[..$limit] AS entries
