// Direct reads: recall returned these memories.
UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
SET m.access_count = coalesce(m.access_count, 0) + 1, m.last_accessed_at = $now
