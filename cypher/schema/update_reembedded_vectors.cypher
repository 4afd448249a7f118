// transaction: write
// Re-embedding, after recall reads the new vectors: memories written meanwhile (or missed) get
// the new model's vector in both places, as float32 arrays. $rows: {id, vector}.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.embedding IS NOT NULL
CALL db.create.setNodeVectorProperty(m, '_embedding_next', row.vector)
CALL db.create.setNodeVectorProperty(m, 'embedding', row.vector)
RETURN count(m) AS n
