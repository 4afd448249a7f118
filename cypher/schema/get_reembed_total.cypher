// transaction: read
// Re-embedding: how many memories have a vector (the progress's total).
MATCH (m:Memory)
WHERE m.embedding IS NOT NULL
RETURN count(m) AS n
