// Which of the query's capitalised words name a person cue visible from the scope.
MATCH (c:Cue)
WHERE c.scope_key IN $visible AND c.kind = 'person' AND c.key IN $keys
RETURN DISTINCT c.key AS key
