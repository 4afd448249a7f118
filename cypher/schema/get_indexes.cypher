// transaction: read
SHOW INDEXES YIELD name, state
RETURN name, state
