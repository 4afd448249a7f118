// Before the cue_key constraint: fold every set of Cue nodes sharing (scope_key, kind, key) into
// one survivor (the oldest; ties by element id), scope by scope. Each duplicate's HAS_CUE and
// IN_SCOPE relationships are re-pointed to the survivor (MERGE: a memory or scope already tied
// to it keeps one relationship), then the duplicate is deleted. One transaction per 200
// duplicates, so no transaction outgrows the memory pool and a crash loses at most one batch;
// run again, it finds nothing left to fold. Returns how many duplicates it removed.
MATCH (c:Cue)
WITH DISTINCT c.scope_key AS scope_key
CALL (scope_key) {
  MATCH (c:Cue)
  WHERE c.scope_key = scope_key AND c.kind IS NOT NULL AND c.key IS NOT NULL
  WITH c ORDER BY c.created_at, elementId(c)
  WITH c.kind AS kind, c.key AS key, collect(c) AS copies
  WHERE size(copies) > 1
  UNWIND tail(copies) AS dup
  RETURN head(copies) AS keep, dup
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
