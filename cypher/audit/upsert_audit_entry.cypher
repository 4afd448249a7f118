// transaction: write
// Record one decision as an (:AuditEntry) hanging off its scope by IN_SCOPE (so erasing the
// scope erases it) when the scope exists;
// idempotent by id, so a retried transaction writes it once. $entry: flat map, detail as JSON.
MERGE (a:AuditEntry {id: $entry.id})
  ON CREATE SET a = $entry
WITH a
OPTIONAL MATCH (s:Scope {key: a.scope_key})
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | MERGE (a)-[:IN_SCOPE]->(s))
RETURN a {.*} AS entry
