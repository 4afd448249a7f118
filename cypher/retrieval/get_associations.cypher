// transaction: read
// Associative spreading through shared cues, two kinds in one read:
// * session: the best memory of each top session passes $session_decay × its value to
//   every other member;
// * cue: each seed passes $cue_decay × its value × rarity through each keyword / name cue,
//   rarity = ln(1 + N/degree) / ln(1 + N), or 1 / degree when $inverse_rarity; cues shared by
//   > $max_degree memories are skipped;
//   the strongest cues (best offer, then fewer members, then key) are walked while the members
//   of those before add up to fewer than $cue_budget.
// Each reached memory keeps its strongest arrival per kind (ties: the smaller seed id, then
// cue key), with the seed and cue that sent it; at most about $limit arrivals, the strongest
// (ties at the cut-off kept: the cut of the associations fragment, recall/associations.cypher).
CALL () {
  UNWIND $session_seeds AS seed
  MATCH (src:Memory {id: seed.id})-[:HAS_CUE]->(c:Cue {kind: 'session'}) USING INDEX SEEK src:Memory(id)
  WHERE c.scope_key IN $visible
  MATCH (c)<-[:HAS_CUE]-(n)
  WHERE n.id <> seed.id AND n.scope_key IN $visible
    AND ($layers IS NULL OR n.layer IN $layers) AND NOT coalesce(n.retracted, false)
  WITH n.id AS id, $session_decay * seed.value AS passed, seed.id AS source, c.key AS key
  ORDER BY passed DESC, source, key
  WITH id, head(collect({value: passed, seed: source, key: key})) AS best
  RETURN 'session' AS part, id, best.value AS activation, best.seed AS seed, best.key AS key
  UNION ALL
  UNWIND $cue_seeds AS seed
  MATCH (src:Memory {id: seed.id})-[:HAS_CUE]->(c:Cue) USING INDEX SEEK src:Memory(id)
  WHERE c.kind IN ['keyword', 'entity'] AND c.scope_key IN $visible
  WITH seed, c, COUNT { (c)<-[:HAS_CUE]-() } AS degree
  WHERE degree > 1 AND degree <= $max_degree
  WITH seed, c, degree,
       $cue_decay * seed.value * CASE WHEN $inverse_rarity THEN 1.0 / degree
                                      ELSE log(1.0 + toFloat($population) / degree) / log(1.0 + $population) END AS passed
  WHERE passed >= $threshold
  WITH c, degree, collect({seed: seed, passed: passed}) AS offers, max(passed) AS v
  WITH collect({c: c, degree: degree, offers: offers, v: v, key: c.kind + ':' + c.key + ':' + elementId(c)}) AS cues
  WITH reduce(r = [], x IN cues |
         [t IN r WHERE t.v > x.v OR (t.v = x.v AND (t.degree < x.degree OR (t.degree = x.degree AND t.key < x.key)))] + [x]
         + [t IN r WHERE NOT (t.v > x.v OR (t.v = x.v AND (t.degree < x.degree OR (t.degree = x.degree AND t.key < x.key))))]) AS ordered
  UNWIND [j IN range(0, size(ordered) - 1)
          WHERE reduce(s = 0, q IN ordered[..j] | s + q.degree) < $cue_budget | ordered[j]] AS walk
  UNWIND walk.offers AS offer
  WITH offer.seed AS seed, walk.c AS c, offer.passed AS passed
  MATCH (c)<-[:HAS_CUE]-(n)
  WHERE n.id <> seed.id AND n.scope_key IN $visible
    AND ($layers IS NULL OR n.layer IN $layers) AND NOT coalesce(n.retracted, false)
  WITH n.id AS id, passed, seed.id AS source, c.kind + ':' + c.key AS key
  ORDER BY passed DESC, source, key
  WITH id, head(collect({value: passed, seed: source, key: key})) AS best
  RETURN 'cue' AS part, id, best.value AS activation, best.seed AS seed, best.key AS key
}
WITH collect({part: part, id: id, activation: activation, seed: seed, key: key}) AS found
CALL (found) {
  UNWIND found AS x
  RETURN percentileDisc(x.activation, CASE WHEN size(found) <= $limit THEN 0.0
                                           ELSE toFloat(size(found) - $limit - 1) / size(found) END) AS floor
}
UNWIND [x IN found WHERE floor IS NULL OR x.activation >= floor] AS x
RETURN x.part AS part, x.id AS id, x.activation AS activation, x.seed AS seed, x.key AS key
ORDER BY activation DESC
