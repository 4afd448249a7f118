// a = evidence + edge activation, per memory: each entry also carries its evidence (b), whether
// it is a seed and its edge arrival (what the returned rows are cut by).
// in: base, seed_ids, arrived4
// out: a
CALL (base, seed_ids, arrived4) {
  WITH seed_ids, arrived4 AS edges, [b IN base | {b: b, edge: head([e IN arrived4 WHERE e.id = b.id])}] AS joined
  RETURN [j IN joined | {id: j.b.id, v: j.b.act + coalesce(j.edge.act, 0.0), session: j.b.session, b: j.b.act,
                         seed: true, edge: j.edge}]
         + [e IN edges WHERE NOT e.id IN seed_ids | {id: e.id, v: e.act, session: null, b: 0.0, seed: false, edge: e}] AS a
}
