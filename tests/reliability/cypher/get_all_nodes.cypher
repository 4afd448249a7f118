// Every node of the database with its labels and properties (a test-only full dump).
MATCH (n)
RETURN elementId(n) AS eid, labels(n) AS labels, properties(n) AS props
