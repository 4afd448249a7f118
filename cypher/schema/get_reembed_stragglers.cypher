// transaction: read
// Re-embedding: memories with a vector but none of the new model's yet (written after the
// id-ordered pass went by them).
MATCH (m:Memory)
WHERE m.embedding IS NOT NULL AND m._embedding_next IS NULL
WITH m LIMIT $batch
RETURN m.id AS id, m.label AS label, m.content AS content
