// Visits by spreading activation.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
SET m.spreading_access_count = coalesce(m.spreading_access_count, 0) + 1
