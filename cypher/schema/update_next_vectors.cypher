// transaction: write
// Re-embedding: the new model's vectors beside the old ones, as float32 arrays. $rows: {id, vector}.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.embedding IS NOT NULL
CALL db.create.setNodeVectorProperty(m, '_embedding_next', row.vector)
RETURN count(m) AS n
