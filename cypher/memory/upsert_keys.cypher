// transaction: write
// Keys of turns (extra index entries: facts, keyphrases, dates, what a turn says of a person),
// each a (:Key) linked to its memory by KEY_OF and to the memory's scope by IN_SCOPE (a subtree
// erase takes it with the scope). Idempotent: a key's id is derived from its memory, kind and
// text (MERGE); the memory's keys from $enricher that the new set lacks are deleted first, so
// enriching again replaces, never duplicates. Only memories of exactly $scope_key.
// Parameters: $scope_key, $enricher, $turns ([{memory_id, keys: [{id, kind, text, embedding}]}]), $now.
UNWIND $turns AS turn
MATCH (m:Memory {id: turn.memory_id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key = $scope_key
MATCH (s:Scope {key: $scope_key})
CALL (m, turn) {
  MATCH (old:Key)-[:KEY_OF]->(m)
  WHERE old.enricher = $enricher AND NOT old.id IN [x IN turn.keys | x.id]
  DETACH DELETE old
}
CALL (m, s, turn) {
  UNWIND turn.keys AS row
  MERGE (k:Key {id: row.id})
    ON CREATE SET k.created_at = $now
  SET k.text = row.text, k.search_text = row.text, k.kind = row.kind, k.embedding = row.embedding,
      k.enricher = $enricher, k.memory_id = m.id, k.scope_key = m.scope_key, k.scope_tag = m.scope_tag,
      k.scope_lo = m.scope_lo, k.scope_hi = m.scope_hi, k.layer = m.layer
  MERGE (k)-[:KEY_OF]->(m)
  MERGE (k)-[:IN_SCOPE]->(s)
  RETURN count(k) AS n
}
RETURN coalesce(sum(n), 0) AS written
