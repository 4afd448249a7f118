// transaction: read
// Re-embedding: the next memories with a vector after $after, in id order (the memory id
// constraint's index gives the order), with the words their vector is made of.
MATCH (m:Memory)
WHERE m.id > $after AND m.embedding IS NOT NULL
WITH m ORDER BY m.id LIMIT $batch
RETURN m.id AS id, m.label AS label, m.content AS content
