// transaction: write
// Direct reads: recall returned these memories. Locked in id order: recalls run concurrently
// and return overlapping memories in different (rank) orders, and two writers that lock the
// same nodes in opposite orders deadlock.
UNWIND $ids AS id
WITH id ORDER BY id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
SET m.access_count = coalesce(m.access_count, 0) + 1, m.last_accessed_at = $now
