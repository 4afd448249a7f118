// One hop of spreading over memory edges, rendered once per hop @h = 1 … 4 (@p = @h − 1; hop @h
// runs when @h <= max(1, $max_hops)): each frontier memory passes parent × decay × edge factor
// to its $fan_out strongest visible live neighbours (weight descending, missing weights first,
// then id; no cycles, nothing below the threshold). Per hop a memory keeps its strongest
// arrival (ties within 1e-9: the smaller source id, then relationship type); a seed or an
// earlier arrival is replaced only by one stronger by more than 1e-9 (a near-tie keeps the lower
// hop); new memories are admitted strongest first (then by id) while fewer than $max_nodes were
// added.
// part: activation
// repeat: 4
// in: visible, frontier@p, arrived@p, added@p, capped@p, seed_ids
// out: arrived@h = arrived@p, frontier@h = [], added@h = added@p, capped@h = capped@p
CALL (visible, frontier@p, arrived@p, added@p, capped@p, seed_ids) {
  CALL (visible, frontier@p) {
    UNWIND CASE WHEN @h = 1 OR $max_hops >= @h THEN frontier@p ELSE [] END AS f
    MATCH (src:Memory {id: f.id})-[r]-(n:Memory) USING INDEX SEEK src:Memory(id)
    WHERE n.scope_key IN visible AND r.scope_key IN visible
      AND NOT coalesce(n.retracted, false) AND ($layers IS NULL OR n.layer IN $layers)
    WITH f, collect({id: n.id, rel: type(r), w: r.weight}) AS neighbours
    WITH f, reduce(top = [], x IN neighbours |
              ([t IN top WHERE (t.w IS NULL AND x.w IS NOT NULL) OR (t.w IS NOT NULL AND x.w IS NOT NULL AND t.w > x.w) OR ((t.w = x.w OR (t.w IS NULL AND x.w IS NULL)) AND (t.id < x.id OR (t.id = x.id AND t.rel < x.rel)))] + [x]
               + [t IN top WHERE NOT ((t.w IS NULL AND x.w IS NOT NULL) OR (t.w IS NOT NULL AND x.w IS NOT NULL AND t.w > x.w) OR ((t.w = x.w OR (t.w IS NULL AND x.w IS NULL)) AND (t.id < x.id OR (t.id = x.id AND t.rel < x.rel))))])[..$fan_out]) AS top
    UNWIND top AS t
    WITH f, t, f.act * $base_decay * CASE WHEN t.w IS NULL OR t.w >= 1 THEN 1.0
                                          WHEN t.w <= 0 THEN 0.0 ELSE toFloat(t.w) END AS incoming
    WHERE incoming >= $threshold AND NONE(p IN f.path WHERE p.node_id = t.id)
    WITH t.id AS id, collect({act: incoming, src: f.id, rel: t.rel,
                              path: f.path + [{node_id: t.id, relationship: t.rel}]}) AS arrivals
    WITH id, reduce(b = null, x IN arrivals |
           CASE WHEN b IS NULL OR x.act > b.act + 1e-9
                     OR (x.act >= b.act - 1e-9 AND (x.src < b.src OR (x.src = b.src AND x.rel < b.rel)))
                THEN x ELSE b END) AS best
    RETURN collect({id: id, act: best.act, path: best.path}) AS step
  }
  WITH arrived@p AS arrived, added@p AS added, capped@p AS capped, seed_ids, step,
       [a IN arrived@p | a.id] AS aids, $max_nodes - added@p AS room
  WITH arrived, added, capped, seed_ids, step, room,
       [s IN step WHERE NOT s.id IN aids AND NOT s.id IN seed_ids] AS fresh,
       [s IN step WHERE (s.id IN aids OR s.id IN seed_ids)
                    AND NONE(a IN arrived WHERE a.id = s.id AND a.act >= s.act - 1e-9)] AS better
  WITH arrived, added, capped, seed_ids, fresh, better, room, [b IN better | b.id] AS better_ids,
       CASE WHEN size(fresh) <= room THEN fresh
            ELSE reduce(top = [], x IN fresh |
                   ([t IN top WHERE t.act > x.act OR (t.act = x.act AND t.id < x.id)] + [x] + [t IN top WHERE NOT (t.act > x.act OR (t.act = x.act AND t.id < x.id))])[..room]) END AS admitted
  RETURN [a IN arrived WHERE NOT a.id IN better_ids] + better + admitted AS arrived@h,
         [b IN better WHERE NOT b.id IN seed_ids] + admitted AS frontier@h,
         added + size(admitted) AS added@h, capped OR size(fresh) > room AS capped@h
}
