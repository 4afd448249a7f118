// transaction: read
// The scope key of the memory updated last (none in an empty database): where the warm-up
// recalls, since a recall that reads rows runs server code an empty one never reaches.
// No parameters.
MATCH (m:Memory)
WHERE m.updated_at IS NOT NULL
RETURN m.scope_key AS key
ORDER BY m.updated_at DESC
LIMIT 1
