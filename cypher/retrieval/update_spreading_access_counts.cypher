// transaction: write
// Visits by spreading activation. Locked in id order, as update_access_counts.
UNWIND $ids AS id
WITH id ORDER BY id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
SET m.spreading_access_count = coalesce(m.spreading_access_count, 0) + 1
