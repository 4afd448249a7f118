// transaction: read
SHOW CONSTRAINTS YIELD name
RETURN name
