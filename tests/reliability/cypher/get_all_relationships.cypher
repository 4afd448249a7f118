// Every relationship of the database with its type, properties and ends (a test-only full dump).
MATCH (a)-[r]->(b)
RETURN elementId(a) AS source, type(r) AS type, properties(r) AS props, elementId(b) AS target
