// Associative spreading through shared cues: a session's best member passes $session_decay ×
// its value to every other member; a seed passes $cue_decay × its value × rarity through each
// keyword / name cue, rarity = ln(1 + N/degree) / ln(1 + N) (1 / degree when $inverse_rarity),
// cues shared by more than $max_cue_degree memories skipped, the strongest cues walked until
// their members add up to $cue_budget; each memory keeps its strongest arrival per kind; at most
// about $assoc_limit arrivals, the strongest (ties at the cut-off kept).
// part: activation
// in: visible, reps, cue_seeds, population
// out: assoc = []
CALL (visible, reps, cue_seeds, population) {
  CALL (visible, reps, cue_seeds, population) {
    UNWIND CASE WHEN $session_decay > 0 THEN reps ELSE [] END AS seed
    MATCH (src:Memory {id: seed.id})-[:HAS_CUE]->(c:Cue {kind: 'session'}) USING INDEX SEEK src:Memory(id)
    WHERE c.scope_key IN visible
    MATCH (c)<-[:HAS_CUE]-(n)
    WHERE n.id <> seed.id AND n.scope_key IN visible
      AND ($layers IS NULL OR n.layer IN $layers) AND NOT coalesce(n.retracted, false)
    WITH n.id AS id, collect({value: $session_decay * seed.value, seed: seed.id, key: c.key}) AS arrivals
    WITH id, reduce(b = null, x IN arrivals |
           CASE WHEN b IS NULL OR x.value > b.value
                     OR (x.value = b.value AND (x.seed < b.seed OR (x.seed = b.seed AND x.key < b.key)))
                THEN x ELSE b END) AS best
    RETURN 'session' AS part, id, best.value AS activation, best.seed AS seed, best.key AS key
    UNION ALL
    UNWIND CASE WHEN $cue_decay > 0 THEN cue_seeds ELSE [] END AS seed
    MATCH (src:Memory {id: seed.id})-[:HAS_CUE]->(c:Cue) USING INDEX SEEK src:Memory(id)
    WHERE c.kind IN ['keyword', 'entity'] AND c.scope_key IN visible
    WITH visible, seed, c, COUNT { (c)<-[:HAS_CUE]-() } AS degree,
         CASE WHEN population < 2 THEN 2 ELSE population END AS pop
    WHERE degree > 1 AND degree <= $max_cue_degree
    WITH visible, seed, c, degree,
         $cue_decay * seed.value * CASE WHEN $inverse_rarity THEN 1.0 / degree
                                        ELSE log(1.0 + toFloat(pop) / degree) / log(1.0 + pop) END AS passed
    WHERE passed >= $threshold
    // Each cue is walked once, not once per seed that has it: a member takes the cue's best
    // offer (value, then lower seed id), the second best when it is that best seed itself —
    // the strongest arrival per memory is the one a walk per (seed, cue) would find.
    WITH visible, c, degree, collect({value: passed, seed: seed.id}) AS offers
    WITH visible, c, degree, reduce(top = [], x IN offers |
           CASE WHEN any(t IN top WHERE t.seed = x.seed) THEN top
                ELSE ([t IN top WHERE t.value > x.value OR (t.value = x.value AND t.seed < x.seed)] + [x]
                      + [t IN top WHERE NOT (t.value > x.value OR (t.value = x.value AND t.seed < x.seed))])[..2] END) AS top
    // The strongest cues first (best offer, then fewer members, then key), walked while the
    // members of those before add up to fewer than $cue_budget: a common, weak cue late in the
    // order would flood the arrivals with memories that rank nowhere.
    WITH visible, collect({c: c, degree: degree, top: top, v: top[0].value, via: c.kind + ':' + c.key,
                           key: c.kind + ':' + c.key + ':' + elementId(c)}) AS cues
    WITH visible, reduce(r = [], x IN cues |
           [t IN r WHERE t.v > x.v OR (t.v = x.v AND (t.degree < x.degree OR (t.degree = x.degree AND t.key < x.key)))] + [x]
           + [t IN r WHERE NOT (t.v > x.v OR (t.v = x.v AND (t.degree < x.degree OR (t.degree = x.degree AND t.key < x.key))))]) AS ordered
    UNWIND [j IN range(0, size(ordered) - 1)
            WHERE reduce(s = 0, q IN ordered[..j] | s + q.degree) < $cue_budget | ordered[j]] AS walk
    // Members are grouped before anything is read from them: a memory that shares several walked
    // cues has its properties read once, not once per cue.
    WITH visible, walk.top AS top, walk.via AS via, walk.c AS c
    MATCH (c)<-[:HAS_CUE]-(n)
    WITH visible, n, collect({top: top, via: via}) AS shared
    WHERE n.scope_key IN visible
      AND ($layers IS NULL OR n.layer IN $layers) AND NOT coalesce(n.retracted, false)
    WITH n.id AS id, shared
    WITH id, [s IN shared | {offer: CASE WHEN id = s.top[0].seed THEN s.top[1] ELSE s.top[0] END, via: s.via}] AS offers
    WITH id, [o IN offers WHERE o.offer IS NOT NULL | {value: o.offer.value, seed: o.offer.seed, key: o.via}] AS arrivals
    WHERE size(arrivals) > 0
    WITH id, reduce(b = null, x IN arrivals |
           CASE WHEN b IS NULL OR x.value > b.value
                     OR (x.value = b.value AND (x.seed < b.seed OR (x.seed = b.seed AND x.key < b.key)))
                THEN x ELSE b END) AS best
    RETURN 'cue' AS part, id, best.value AS activation, best.seed AS seed, best.key AS key
  }
  WITH collect({part: part, id: id, activation: activation, seed: seed, key: key}) AS found
  CALL (found) {
    UNWIND found AS x
    RETURN percentileDisc(x.activation, CASE WHEN size(found) <= $assoc_limit THEN 0.0
                                             ELSE toFloat(size(found) - $assoc_limit - 1) / size(found) END) AS floor
  }
  RETURN [x IN found WHERE floor IS NULL OR x.activation >= floor] AS assoc
}
