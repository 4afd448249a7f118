// A memory's neighbourhood: every live memory within two hops of one memory, with the edges between them.
// Put a memory id in memory_id (click a node and copy its `id`).
:param memory_id => "replace-with-a-memory-id";
:param limit => 100;
MATCH p = (m:Memory {id: $memory_id})-[*1..2]-(n:Memory) USING INDEX SEEK m:Memory(id)
WHERE all(x IN nodes(p) WHERE NOT coalesce(x.retracted, false))
RETURN p
LIMIT $limit
