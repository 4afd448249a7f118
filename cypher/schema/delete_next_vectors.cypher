// transaction: write
// Re-embedding, once recall reads the memories' own vectors again: drop the copies, in id
// order after $after, $batch at a time.
MATCH (m:Memory)
WHERE m.id > $after AND m._embedding_next IS NOT NULL
WITH m ORDER BY m.id LIMIT $batch
REMOVE m._embedding_next
RETURN count(m) AS n, max(m.id) AS last
