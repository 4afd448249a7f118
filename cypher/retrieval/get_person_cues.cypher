// transaction: read
// Which of the query's capitalised words name a person cue visible from the scope.
// A person named at two scope levels has two Cue nodes: the keys are collected DISTINCT, because
// Neo4j 2026.08 drops a row DISTINCT over a property of nodes found by a uniqueness-constraint
// seek (each node is unique, so it treats every row as unique) and would return the key twice.
MATCH (c:Cue)
WHERE c.scope_key IN $visible AND c.kind = 'person' AND c.key IN $keys
WITH collect(DISTINCT c.key) AS keys
UNWIND keys AS key
RETURN key
