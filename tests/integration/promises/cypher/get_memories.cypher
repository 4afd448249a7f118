// Test inspection: memories by id, whatever their scope or state (retracted included).
UNWIND range(0, size($ids) - 1) AS i
MATCH (m:Memory {id: $ids[i]})
RETURN m.id AS id, m.retracted AS retracted, m.superseded_by AS superseded_by, m.scope_key AS scope_key
ORDER BY i
