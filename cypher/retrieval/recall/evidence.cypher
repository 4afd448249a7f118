// Evidence: per memory the vector row wins over the fulltext row (cosine, session, persons);
// each channel z-scored over the pool (a missing cosine counts as the lowest one, a missing
// BM25 as 0), added with the weights, + the person bonus when the query names one person;
// then relative to the weakest candidate, scaled to [0, 1] (all 1 when all are equal). The
// candidates with evidence above 0 are the first frontier of spreading (unless $max_nodes is 0).
// in: vector_hits, fulltext_hits, named
// out: base, seed_ids, frontier0, arrived0, added0, capped0
CALL (vector_hits, fulltext_hits, named) {
  WITH vector_hits, fulltext_hits, named, [h IN vector_hits | h.id] AS v_ids
  WITH vector_hits, fulltext_hits,
       vector_hits + [h IN fulltext_hits WHERE NOT h.id IN v_ids | h {.*, score: null}] AS rows,
       CASE WHEN size(named) = 1 THEN named[0] END AS person
  WITH fulltext_hits,
       [r IN rows | {id: r.id, c: CASE WHEN r.cosine IS NULL THEN null ELSE 2.0 * r.cosine - 1.0 END,
                     b: coalesce(head([h IN fulltext_hits WHERE h.id = r.id | h.score]), 0.0),
                     session: CASE WHEN r.session_id IS NOT NULL AND r.session_id <> '' THEN r.session_id
                                   ELSE head([h IN fulltext_hits WHERE h.id = r.id AND h.session_id <> '' | h.session_id])
                              END,
                     p: CASE WHEN person IS NOT NULL AND person IN r.persons THEN $person_bonus ELSE 0.0 END}] AS pool
  WITH pool, toFloat(size(pool)) AS n,
       reduce(lo = null, x IN pool | CASE WHEN x.c IS NOT NULL AND (lo IS NULL OR x.c < lo) THEN x.c ELSE lo END) AS cmin
  WITH pool, n, [x IN pool | coalesce(x.c, cmin, 0.0)] AS xc
  WITH pool, n, xc, reduce(s = 0.0, x IN xc | s + x) / n AS mc, reduce(s = 0.0, x IN pool | s + x.b) / n AS mf
  WITH pool, xc, mc, mf,
       sqrt(reduce(s = 0.0, x IN xc | s + (x - mc) ^ 2) / n) AS sc,
       sqrt(reduce(s = 0.0, x IN pool | s + (x.b - mf) ^ 2) / n) AS sf
  WITH pool,
       [j IN range(0, size(pool) - 1) |
         (CASE WHEN sc <= 1e-12 THEN 0.0 ELSE (xc[j] - mc) / sc END) * $vector_weight
         + (CASE WHEN sf <= 1e-12 THEN 0.0 ELSE (pool[j].b - mf) / sf END) * $fulltext_weight
         + pool[j].p] AS raw
  WITH pool, raw, reduce(lo = null, x IN raw | CASE WHEN lo IS NULL OR x < lo THEN x ELSE lo END) AS floor
  WITH pool, raw, floor, reduce(hi = 0.0, x IN raw | CASE WHEN x - floor > hi THEN x - floor ELSE hi END) AS top
  WITH [j IN range(0, size(pool) - 1) |
         {id: pool[j].id, session: pool[j].session,
          act: CASE WHEN top > 1e-9 THEN (raw[j] - floor) / top ELSE 1.0 END}] AS base
  RETURN base, [b IN base | b.id] AS seed_ids,
         CASE WHEN $max_nodes > 0 THEN [b IN base WHERE b.act > 0 | {id: b.id, act: b.act, path: [{node_id: b.id}]}]
              ELSE [] END AS frontier0,
         [] AS arrived0, 0 AS added0, false AS capped0
}
