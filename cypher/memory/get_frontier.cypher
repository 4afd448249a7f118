// One breadth-first step: the visible, not yet seen neighbours of $frontier.
UNWIND $frontier AS id
MATCH (m:Memory {id: id})-[r]-(n:Memory) USING INDEX SEEK m:Memory(id)
WHERE n.scope_key IN $visible AND r.scope_key IN $visible
  AND NOT n.id IN $seen
  AND NOT coalesce(n.retracted, false)
RETURN DISTINCT n {.*, embedding: null} AS n
