// Every index with its id and state (a test-only read: an index built again gets a new id).
SHOW INDEXES YIELD name, id, state
RETURN name, id, state
ORDER BY name
