// transaction: autocommit
// Erase, step 2b: provenance lists (source_episodic_ids) on relationships between memories
// of the ancestors ($ancestor_keys) lose every id that names no surviving memory: the erased
// subtree's episodes (and, on a resumed erase, the ones already deleted). In batches.
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
WHERE m.scope_key IN $ancestor_keys
MATCH (m)-[r]->(:Memory)
WHERE size(coalesce(r.source_episodic_ids, [])) > 0
WITH r, [x IN r.source_episodic_ids WHERE NOT EXISTS {
           MATCH (e:Memory {id: x}) USING INDEX SEEK e:Memory(id)
           WHERE e.scope_key <> $scope_key AND NOT e.scope_key STARTS WITH $subtree_prefix
         }] AS gone
WHERE size(gone) > 0
CALL (r, gone) {
  SET r.source_episodic_ids = [x IN r.source_episodic_ids WHERE NOT x IN gone]
} IN TRANSACTIONS OF $batch ROWS
RETURN count(*) AS scrubbed
