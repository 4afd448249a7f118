// transaction: autocommit
// Before the cue_key constraint: fold every set of Cue nodes sharing (scope_key, kind, key) into
// one survivor (the oldest; ties by element id). One pass counts the copies (no index needed,
// so a freshly imported store is read once); only the sets with copies are looked up again.
// Each duplicate's HAS_CUE and IN_SCOPE relationships are re-pointed to the survivor (MERGE: a
// memory or scope already tied to it keeps one relationship), then the duplicate is deleted.
// One transaction per 200 duplicates, so no transaction outgrows the memory pool and a crash
// loses at most one batch; run again, it finds nothing left to fold. Returns how many
// duplicates it removed.
MATCH (c:Cue)
WITH c.scope_key AS scope_key, c.kind AS kind, c.key AS key, count(*) AS copies
WHERE copies > 1
CALL (scope_key, kind, key) {
  MATCH (c:Cue)
  WHERE c.scope_key = scope_key AND c.kind = kind AND c.key = key
  WITH c ORDER BY c.created_at, elementId(c)
  WITH collect(c) AS same
  UNWIND tail(same) AS dup
  RETURN head(same) AS keep, dup
}
CALL (keep, dup) {
  CALL (keep, dup) {
    MATCH (m)-[r:HAS_CUE]->(dup)
    MERGE (m)-[:HAS_CUE]->(keep)
    DELETE r
  }
  CALL (keep, dup) {
    MATCH (dup)-[r:IN_SCOPE]->(s)
    MERGE (keep)-[:IN_SCOPE]->(s)
    DELETE r
  }
  DETACH DELETE dup
} IN TRANSACTIONS OF 200 ROWS
RETURN count(*) AS removed
