// transaction: write
// Re-embedding, after recall reads the new vectors: copy the next $batch of them into the
// memories' own vector property, in id order after $after.
MATCH (m:Memory)
WHERE m.id > $after AND m._embedding_next IS NOT NULL
WITH m ORDER BY m.id LIMIT $batch
CALL db.create.setNodeVectorProperty(m, 'embedding', m._embedding_next)
RETURN count(m) AS n, max(m.id) AS last
