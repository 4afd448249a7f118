// Associative spreading through shared cues: seed -[:HAS_CUE]-> cue <-[:HAS_CUE]- memory.
// Returns each (seed, cue, memory) with the cue's degree (how many memories share it) so
// rarer cues pass more activation; cues shared by more than $max_degree memories are skipped.
UNWIND $seeds AS seed
MATCH (s:Memory {id: seed})-[:HAS_CUE]->(c:Cue)
WHERE c.kind IN $kinds AND c.scope_key IN $visible
WITH seed, c, COUNT { (c)<-[:HAS_CUE]-(:Memory) } AS degree
WHERE degree > 1 AND degree <= $max_degree
MATCH (c)<-[:HAS_CUE]-(n:Memory)
WHERE n.id <> seed AND n.scope_key IN $visible
  AND ($layers IS NULL OR n.layer IN $layers)
  AND NOT coalesce(n.retracted, false)
RETURN seed, c.kind AS kind, c.key AS key, degree, n.id AS id
