// A memory's neighbourhood: every live memory within two hops of one memory, with the edges between them.
// Put a memory id in memory_id (click a node and copy its `id`).
// Scopes under erasure (at or below an (:Erasure) marker) show nothing, as in hippograph's own reads.
:param memory_id => "replace-with-a-memory-id";
:param limit => 100;
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH p = (m:Memory {id: $memory_id})-[*1..2]-(n:Memory) USING INDEX SEEK m:Memory(id)
WHERE all(x IN nodes(p) WHERE NOT coalesce(x.retracted, false)
          AND none(gone IN erasing WHERE coalesce(x.scope_key, x.key) = gone
                    OR coalesce(x.scope_key, x.key) STARTS WITH gone + '/'))
  AND all(r IN relationships(p) WHERE none(gone IN erasing WHERE coalesce(r.scope_key, '') = gone
                                      OR coalesce(r.scope_key, '') STARTS WITH gone + '/'))
RETURN p
LIMIT $limit
