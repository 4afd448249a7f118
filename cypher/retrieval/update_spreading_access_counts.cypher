// Visits by spreading activation.
UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
SET m.spreading_access_count = coalesce(m.spreading_access_count, 0) + 1
