// Associative spreading through shared cues, two kinds in one read:
// * session: the best memory of each top session passes $session_decay × its value to
//   every other member;
// * cue: each seed passes $cue_decay × its value × rarity through each keyword / name cue,
//   rarity = ln(1 + N/degree) / ln(1 + N); cues shared by > $max_degree memories are skipped.
// Each reached memory keeps its strongest arrival per kind (ties: the smaller seed id, then
// cue key), with the seed and cue that sent it.
CALL () {
  UNWIND $session_seeds AS seed
  MATCH (:Memory {id: seed.id})-[:HAS_CUE]->(c:Cue {kind: 'session'})
  WHERE c.scope_key IN $visible
  MATCH (c)<-[:HAS_CUE]-(n:Memory)
  WHERE n.id <> seed.id AND n.scope_key IN $visible
    AND ($layers IS NULL OR n.layer IN $layers) AND NOT coalesce(n.retracted, false)
  WITH n.id AS id, $session_decay * seed.value AS passed, seed.id AS source, c.key AS key
  ORDER BY passed DESC, source, key
  WITH id, head(collect({value: passed, seed: source, key: key})) AS best
  RETURN 'session' AS part, id, best.value AS activation, best.seed AS seed, best.key AS key
  UNION ALL
  UNWIND $cue_seeds AS seed
  MATCH (:Memory {id: seed.id})-[:HAS_CUE]->(c:Cue)
  WHERE c.kind IN ['keyword', 'entity'] AND c.scope_key IN $visible
  WITH seed, c, COUNT { (c)<-[:HAS_CUE]-() } AS degree
  WHERE degree > 1 AND degree <= $max_degree
  WITH seed, c, $cue_decay * seed.value * log(1.0 + toFloat($population) / degree) / log(1.0 + $population) AS passed
  WHERE passed >= $threshold
  MATCH (c)<-[:HAS_CUE]-(n:Memory)
  WHERE n.id <> seed.id AND n.scope_key IN $visible
    AND ($layers IS NULL OR n.layer IN $layers) AND NOT coalesce(n.retracted, false)
  WITH n.id AS id, passed, seed.id AS source, c.kind + ':' + c.key AS key
  ORDER BY passed DESC, source, key
  WITH id, head(collect({value: passed, seed: source, key: key})) AS best
  RETURN 'cue' AS part, id, best.value AS activation, best.seed AS seed, best.key AS key
}
RETURN part, id, activation, seed, key
ORDER BY activation DESC
LIMIT $limit
