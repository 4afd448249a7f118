// transaction: write
// The new fact supersedes the old one: the old keeps its text, gets superseded_by and
// valid_until, and a SUPERSEDES edge records the change. Both in the writer's scope.
MATCH (old:Memory {id: $old_id}), (new:Memory {id: $new_id})
  USING INDEX SEEK old:Memory(id) USING INDEX SEEK new:Memory(id)
WHERE old.scope_key = $scope_key AND new.scope_key = $scope_key AND old.id <> new.id
SET old.superseded_by = new.id, old.valid_until = $now, old.updated_at = $now
MERGE (new)-[r:SUPERSEDES {scope_key: $scope_key}]->(old)
  ON CREATE SET r.id = randomUUID(), r.weight = 1.0, r.provenance = 'correction', r.uses = 0,
                r.created_at = $now, r.source_episodic_ids = []
RETURN old.id AS id
