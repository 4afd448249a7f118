// One recall in one round trip: both channels, the evidence, spreading activation over memory
// edges (up to four hops, unrolled), session and cue spreading, the ranking and the rows to
// score — the same steps and maths as the stage-by-stage path (retrieval/staged.py), which
// is also recall's fallback when this statement fails.
// After the channels nothing sorts rows (a buffered row is charged all state in scope):
// orderings are aggregations, reduce() arg-max / top-n insertions and percentile cut-offs.
// Parameters: $vector (the query's embedding; read only when $directed), $directed (false: the
// query has no direction — no vector channel, no cosines), $lucene (blank: no fulltext; trailing
// spaces are the query parser's whitespace), $visible (the scope's ancestor keys, '' entries are
// padding; those at or below an (:Erasure) marker, whose erase has started, are left out
// here), $layers ('' entries are padding),
// $k, $fetch_k (hits per visible key searched inside the vector index, Cypher 25 SEARCH; the
// exact scan answers when fewer than $k survive), $exact_below (scopes that see no more memories
// are scanned exactly), $keys (names the query mentions, casefolded; '' entries are padding),
// $population (-1: count here), $vector_weight, $fulltext_weight, $person_bonus, $max_nodes,
// $max_hops, $fan_out, $base_decay, $threshold, $session_decay, $session_seeds, $cue_decay,
// $cue_seeds, $max_cue_degree, $cue_budget, $inverse_rarity, $session_prior, $assoc_limit, $rank_n, $log_n,
// $max_pending, $all_arrivals.
// No parameter is ever null and the lists and the fulltext query are padded to one size bucket
// (RecallRepository.search_recall): the server plans this statement once per mix of parameter
// types *and* size buckets (0, 1, 2–10, 11–100, 101–1000 …), 4–13 s each
// (benchmarks/notes/tail-5.md, cold-start-5.md).
// Every memory looked up by id or scope key, and the named persons' cues, name their index seek
// (USING INDEX SEEK), and a cue's members are reached from the cue (HAS_CUE starts only at
// memories, so they carry no label to seek by): the plan is cached for the server's life, and
// one made before the indexes were sampled
// (a fresh database that then took its memories) scanned every memory once per frontier memory
// and cue — 1.0–1.8 s per recall of a 419-turn conversation instead of 60–70 ms
// (benchmarks/notes/plans-7.md).
// Person cues are read only when the query names someone (they only matter then).
// Keys ((:Key)-[:KEY_OF]->(:Memory), written by enrichment) are searched by both channels and
// credited to their memory; a recall whose scopes hold no key (one index seek says so) searches
// no key index, and its channels stay as they were.
// A key's memory is reached from the key with no label: with one, a plan made on fresh
// statistics may scan the memories' scope-key index and join instead of following KEY_OF.
// Returns one row: the visible keys, population, the vector and fulltext hits, the named persons, the edge
// arrivals with their paths, whether the node cap cut the spread, the session
// representatives, the session and cue arrivals (only those the result reads, see the end;
// how many association arrivals there were), and the memories that may rank in the top
// $rank_n (a few more on ties), whole but for the embedding and index-only text; superseded
// versions of a fact are history, not answers (they may carry activation, never rank).
CYPHER 25
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [sk IN $visible WHERE sk <> '' AND none(gone IN erasing WHERE sk = gone OR sk STARTS WITH gone + '/')] AS visible
WITH visible, EXISTS { MATCH (k:Key) USING INDEX SEEK k:Key(scope_key) WHERE k.scope_key IN visible } AS keyed
CALL (visible) {
  UNWIND CASE WHEN $population < 0 THEN [1] ELSE [] END AS _
  MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
  WHERE m.scope_key IN visible AND ($layers IS NULL OR m.layer IN $layers)
  RETURN count(m) AS counted
}
WITH visible, keyed, CASE WHEN $population < 0 THEN counted ELSE $population END AS population
CALL (visible, population) {
  UNWIND CASE WHEN NOT $directed OR population <= $exact_below THEN [] ELSE visible END AS key
  CALL (key) {
    MATCH (m:Memory)
      SEARCH m IN (VECTOR INDEX memory_embedding_scoped FOR $vector WHERE m.scope_key = key LIMIT $fetch_k)
      SCORE AS score
    RETURN m AS node, score
  }
  WITH node, score
  WHERE ($layers IS NULL OR node.layer IN $layers) AND NOT coalesce(node.retracted, false)
  WITH node, score
  ORDER BY score DESC, node.id
  LIMIT $k
  RETURN collect({id: node.id, cosine: score, session_id: node.session_id,
                  persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                               ELSE [(node)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS approx
}
// The keys' vector channel: each visible scope searched inside key_embedding_scoped.
CALL (visible, keyed) {
  UNWIND CASE WHEN $directed AND keyed THEN visible ELSE [] END AS key
  CALL (key) {
    MATCH (k:Key)
      SEARCH k IN (VECTOR INDEX key_embedding_scoped FOR $vector WHERE k.scope_key = key LIMIT $fetch_k)
      SCORE AS score
    RETURN k, score
  }
  MATCH (k)-[:KEY_OF]->(m)
  WHERE m.scope_key IN visible AND ($layers IS NULL OR m.layer IN $layers) AND NOT coalesce(m.retracted, false)
  WITH k, m, score
  ORDER BY score DESC, k.id
  LIMIT $k
  WITH m, collect({cosine: score, key: k.text}) AS found
  WITH m, reduce(b = null, x IN found |
         CASE WHEN b IS NULL OR x.cosine > b.cosine OR (x.cosine = b.cosine AND x.key < b.key) THEN x ELSE b END) AS best
  RETURN collect({id: m.id, cosine: best.cosine, key: best.key, session_id: m.session_id,
                  persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                               ELSE [(m)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS key_vector
}
CALL (visible, population, approx) {
  UNWIND CASE WHEN $directed AND population > 0 AND size(approx) < $k THEN [1] ELSE [] END AS _
  MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
  WHERE m.scope_key IN visible
    AND ($layers IS NULL OR m.layer IN $layers)
    AND m.embedding IS NOT NULL
    AND NOT coalesce(m.retracted, false)
  WITH m, vector.similarity.cosine(m.embedding, $vector) AS cosine
  ORDER BY cosine DESC, m.id
  LIMIT $k
  RETURN collect({id: m.id, cosine: cosine, session_id: m.session_id,
                  persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                               ELSE [(m)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS exact
}
WITH visible, population, keyed, key_vector, CASE WHEN size(approx) >= $k THEN approx ELSE exact END AS vector_hits
CALL (visible) {
  UNWIND CASE WHEN trim($lucene) = '' THEN [] ELSE [1] END AS _
  CALL db.index.fulltext.queryNodes('memory_text', $lucene) YIELD node, score
  WHERE node.scope_key IN visible AND NOT coalesce(node.retracted, false)
  WITH node, score
  LIMIT $k
  RETURN collect({id: node.id, score: score,
                  cosine: CASE WHEN node.embedding IS NULL OR NOT $directed THEN null
                               ELSE vector.similarity.cosine(node.embedding, $vector) END,
                  session_id: node.session_id,
                  persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                               ELSE [(node)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS fulltext_hits
}
CALL (visible, keyed) {
  UNWIND CASE WHEN trim($lucene) = '' OR NOT keyed THEN [] ELSE [1] END AS _
  CALL db.index.fulltext.queryNodes('key_text', $lucene) YIELD node, score
  WHERE node.scope_key IN visible
  MATCH (node)-[:KEY_OF]->(m)
  WHERE m.scope_key IN visible AND ($layers IS NULL OR m.layer IN $layers) AND NOT coalesce(m.retracted, false)
  WITH node, m, score
  LIMIT $k
  WITH m, collect({score: score, key: node.text}) AS found
  WITH m, reduce(b = null, x IN found |
         CASE WHEN b IS NULL OR x.score > b.score OR (x.score = b.score AND x.key < b.key) THEN x ELSE b END) AS best
  RETURN collect({id: m.id, score: best.score, key: best.key,
                  cosine: CASE WHEN m.embedding IS NULL OR NOT $directed THEN null
                               ELSE vector.similarity.cosine(m.embedding, $vector) END,
                  session_id: m.session_id,
                  persons: CASE WHEN none(nk IN $keys WHERE nk <> '') THEN []
                               ELSE [(m)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] END}) AS key_text
}
// Keys ((:Key)-[:KEY_OF]->(memory), both channels): a memory a key was found for takes its best
// key's cosine / BM25 when higher than its own (the row then names the key); such a channel is
// ranked again (score, then id) and cut to $k. Without key hits a channel stays as it was.
CALL (vector_hits, key_vector) {
  UNWIND CASE WHEN size(key_vector) = 0 THEN [] ELSE vector_hits + key_vector END AS h
  WITH h.id AS id, collect(h) AS hs
  WITH head([x IN hs WHERE x.key IS NULL]) AS own, head([x IN hs WHERE x.key IS NOT NULL]) AS via
  WITH CASE WHEN own IS NULL THEN via WHEN via IS NULL OR via.cosine <= own.cosine THEN own
            ELSE own {.*, cosine: via.cosine, key: via.key} END AS h
  ORDER BY h.cosine DESC, h.id
  LIMIT $k
  RETURN collect(h) AS fused_vector
}
CALL (fulltext_hits, key_text) {
  UNWIND CASE WHEN size(key_text) = 0 THEN [] ELSE fulltext_hits + key_text END AS h
  WITH h.id AS id, collect(h) AS hs
  WITH head([x IN hs WHERE x.key IS NULL]) AS own, head([x IN hs WHERE x.key IS NOT NULL]) AS via
  WITH CASE WHEN own IS NULL THEN via WHEN via IS NULL OR via.score <= own.score THEN own
            ELSE own {.*, score: via.score, key: via.key} END AS h
  ORDER BY h.score DESC, h.id
  LIMIT $k
  RETURN collect(h) AS fused_text
}
WITH visible, population,
     CASE WHEN size(key_vector) = 0 THEN vector_hits ELSE fused_vector END AS vector_hits,
     CASE WHEN size(key_text) = 0 THEN fulltext_hits ELSE fused_text END AS fulltext_hits
CALL (visible) {
  OPTIONAL MATCH (c:Cue) USING INDEX SEEK c:Cue(scope_key, kind, key)
  WHERE any(nk IN $keys WHERE nk <> '') AND c.scope_key IN visible AND c.kind = 'person'
    AND c.key IN $keys AND c.key <> ''
  RETURN collect(DISTINCT c.key) AS named
}
// Evidence: per memory the vector row wins over the fulltext row (cosine, session, persons);
// each channel z-scored over the pool (a missing cosine counts as the lowest one, a missing
// BM25 as 0), added with the weights, + the person bonus when the query names one person;
// then relative to the weakest candidate, scaled to [0, 1] (all 1 when all are equal).
WITH visible, population, vector_hits, fulltext_hits, named, [h IN vector_hits | h.id] AS v_ids
WITH visible, population, vector_hits, fulltext_hits, named,
     vector_hits + [h IN fulltext_hits WHERE NOT h.id IN v_ids | h {.*, score: null}] AS rows,
     CASE WHEN size(named) = 1 THEN named[0] END AS person
WITH visible, population, vector_hits, fulltext_hits, named, person,
     [r IN rows | {id: r.id, c: CASE WHEN r.cosine IS NULL THEN null ELSE 2.0 * r.cosine - 1.0 END,
                   b: coalesce(head([h IN fulltext_hits WHERE h.id = r.id | h.score]), 0.0),
                   session: CASE WHEN r.session_id IS NOT NULL AND r.session_id <> '' THEN r.session_id
                                 ELSE head([h IN fulltext_hits WHERE h.id = r.id AND h.session_id <> '' | h.session_id])
                            END,
                   p: CASE WHEN person IS NOT NULL AND person IN r.persons THEN $person_bonus ELSE 0.0 END}] AS pool
WITH visible, population, vector_hits, fulltext_hits, named, pool, toFloat(size(pool)) AS n,
     reduce(lo = null, x IN pool | CASE WHEN x.c IS NOT NULL AND (lo IS NULL OR x.c < lo) THEN x.c ELSE lo END) AS cmin
WITH visible, population, vector_hits, fulltext_hits, named, pool, n, [x IN pool | coalesce(x.c, cmin, 0.0)] AS xc
WITH visible, population, vector_hits, fulltext_hits, named, pool, n, xc,
     reduce(s = 0.0, x IN xc | s + x) / n AS mc, reduce(s = 0.0, x IN pool | s + x.b) / n AS mf
WITH visible, population, vector_hits, fulltext_hits, named, pool, xc, mc, mf,
     sqrt(reduce(s = 0.0, x IN xc | s + (x - mc) ^ 2) / n) AS sc,
     sqrt(reduce(s = 0.0, x IN pool | s + (x.b - mf) ^ 2) / n) AS sf
WITH visible, population, vector_hits, fulltext_hits, named, pool,
     [j IN range(0, size(pool) - 1) |
       (CASE WHEN sc <= 1e-12 THEN 0.0 ELSE (xc[j] - mc) / sc END) * $vector_weight
       + (CASE WHEN sf <= 1e-12 THEN 0.0 ELSE (pool[j].b - mf) / sf END) * $fulltext_weight
       + pool[j].p] AS raw
WITH visible, population, vector_hits, fulltext_hits, named, pool, raw,
     reduce(lo = null, x IN raw | CASE WHEN lo IS NULL OR x < lo THEN x ELSE lo END) AS floor
WITH visible, population, vector_hits, fulltext_hits, named, pool, raw, floor,
     reduce(hi = 0.0, x IN raw | CASE WHEN x - floor > hi THEN x - floor ELSE hi END) AS top
WITH visible, population, vector_hits, fulltext_hits, named,
     [j IN range(0, size(pool) - 1) |
       {id: pool[j].id, session: pool[j].session,
        act: CASE WHEN top > 1e-9 THEN (raw[j] - floor) / top ELSE 1.0 END}] AS base
WITH visible, population, vector_hits, fulltext_hits, named, base, [b IN base | b.id] AS seed_ids,
     CASE WHEN $max_nodes > 0 THEN [b IN base WHERE b.act > 0 | {id: b.id, act: b.act, path: [{node_id: b.id}]}]
          ELSE [] END AS frontier0,
     [] AS arrived0, 0 AS added0, false AS capped0
// Spreading over memory edges, hop by hop (unrolled; hop h runs when h <= max(1, $max_hops)): each
// frontier memory passes parent × decay × edge factor to its $fan_out strongest visible live
// neighbours (weight descending, missing weights first, then id; no cycles, nothing below the
// threshold). Per hop a memory keeps its strongest arrival; a seed or an earlier arrival is
// replaced only by a stronger one; new memories are admitted strongest first (then by id)
// while fewer than $max_nodes were added.
CALL (visible, frontier0, arrived0, added0, capped0, seed_ids) {
  CALL (visible, frontier0) {
    UNWIND frontier0 AS f
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
           CASE WHEN b IS NULL OR x.act > b.act OR (x.act = b.act AND (x.src < b.src OR (x.src = b.src AND x.rel < b.rel)))
                THEN x ELSE b END) AS best
    RETURN collect({id: id, act: best.act, path: best.path}) AS step
  }
  WITH arrived0 AS arrived, added0 AS added, capped0 AS capped, seed_ids, step,
       [a IN arrived0 | a.id] AS aids, $max_nodes - added0 AS room
  WITH arrived, added, capped, seed_ids, step, room,
       [s IN step WHERE NOT s.id IN aids AND NOT s.id IN seed_ids] AS fresh,
       [s IN step WHERE (s.id IN aids OR s.id IN seed_ids)
                    AND NONE(a IN arrived WHERE a.id = s.id AND a.act >= s.act)] AS better
  WITH arrived, added, capped, seed_ids, fresh, better, room, [b IN better | b.id] AS better_ids,
       CASE WHEN size(fresh) <= room THEN fresh
            ELSE reduce(top = [], x IN fresh |
                   ([t IN top WHERE t.act > x.act OR (t.act = x.act AND t.id < x.id)] + [x] + [t IN top WHERE NOT (t.act > x.act OR (t.act = x.act AND t.id < x.id))])[..room]) END AS admitted
  RETURN [a IN arrived WHERE NOT a.id IN better_ids] + better + admitted AS arrived1,
         [b IN better WHERE NOT b.id IN seed_ids] + admitted AS frontier1,
         added + size(admitted) AS added1, capped OR size(fresh) > room AS capped1
}
CALL (visible, frontier1, arrived1, added1, capped1, seed_ids) {
  CALL (visible, frontier1) {
    UNWIND CASE WHEN $max_hops >= 2 THEN frontier1 ELSE [] END AS f
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
           CASE WHEN b IS NULL OR x.act > b.act OR (x.act = b.act AND (x.src < b.src OR (x.src = b.src AND x.rel < b.rel)))
                THEN x ELSE b END) AS best
    RETURN collect({id: id, act: best.act, path: best.path}) AS step
  }
  WITH arrived1 AS arrived, added1 AS added, capped1 AS capped, seed_ids, step,
       [a IN arrived1 | a.id] AS aids, $max_nodes - added1 AS room
  WITH arrived, added, capped, seed_ids, step, room,
       [s IN step WHERE NOT s.id IN aids AND NOT s.id IN seed_ids] AS fresh,
       [s IN step WHERE (s.id IN aids OR s.id IN seed_ids)
                    AND NONE(a IN arrived WHERE a.id = s.id AND a.act >= s.act)] AS better
  WITH arrived, added, capped, seed_ids, fresh, better, room, [b IN better | b.id] AS better_ids,
       CASE WHEN size(fresh) <= room THEN fresh
            ELSE reduce(top = [], x IN fresh |
                   ([t IN top WHERE t.act > x.act OR (t.act = x.act AND t.id < x.id)] + [x] + [t IN top WHERE NOT (t.act > x.act OR (t.act = x.act AND t.id < x.id))])[..room]) END AS admitted
  RETURN [a IN arrived WHERE NOT a.id IN better_ids] + better + admitted AS arrived2,
         [b IN better WHERE NOT b.id IN seed_ids] + admitted AS frontier2,
         added + size(admitted) AS added2, capped OR size(fresh) > room AS capped2
}
CALL (visible, frontier2, arrived2, added2, capped2, seed_ids) {
  CALL (visible, frontier2) {
    UNWIND CASE WHEN $max_hops >= 3 THEN frontier2 ELSE [] END AS f
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
           CASE WHEN b IS NULL OR x.act > b.act OR (x.act = b.act AND (x.src < b.src OR (x.src = b.src AND x.rel < b.rel)))
                THEN x ELSE b END) AS best
    RETURN collect({id: id, act: best.act, path: best.path}) AS step
  }
  WITH arrived2 AS arrived, added2 AS added, capped2 AS capped, seed_ids, step,
       [a IN arrived2 | a.id] AS aids, $max_nodes - added2 AS room
  WITH arrived, added, capped, seed_ids, step, room,
       [s IN step WHERE NOT s.id IN aids AND NOT s.id IN seed_ids] AS fresh,
       [s IN step WHERE (s.id IN aids OR s.id IN seed_ids)
                    AND NONE(a IN arrived WHERE a.id = s.id AND a.act >= s.act)] AS better
  WITH arrived, added, capped, seed_ids, fresh, better, room, [b IN better | b.id] AS better_ids,
       CASE WHEN size(fresh) <= room THEN fresh
            ELSE reduce(top = [], x IN fresh |
                   ([t IN top WHERE t.act > x.act OR (t.act = x.act AND t.id < x.id)] + [x] + [t IN top WHERE NOT (t.act > x.act OR (t.act = x.act AND t.id < x.id))])[..room]) END AS admitted
  RETURN [a IN arrived WHERE NOT a.id IN better_ids] + better + admitted AS arrived3,
         [b IN better WHERE NOT b.id IN seed_ids] + admitted AS frontier3,
         added + size(admitted) AS added3, capped OR size(fresh) > room AS capped3
}
CALL (visible, frontier3, arrived3, added3, capped3, seed_ids) {
  CALL (visible, frontier3) {
    UNWIND CASE WHEN $max_hops >= 4 THEN frontier3 ELSE [] END AS f
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
           CASE WHEN b IS NULL OR x.act > b.act OR (x.act = b.act AND (x.src < b.src OR (x.src = b.src AND x.rel < b.rel)))
                THEN x ELSE b END) AS best
    RETURN collect({id: id, act: best.act, path: best.path}) AS step
  }
  WITH arrived3 AS arrived, added3 AS added, capped3 AS capped, seed_ids, step,
       [a IN arrived3 | a.id] AS aids, $max_nodes - added3 AS room
  WITH arrived, added, capped, seed_ids, step, room,
       [s IN step WHERE NOT s.id IN aids AND NOT s.id IN seed_ids] AS fresh,
       [s IN step WHERE (s.id IN aids OR s.id IN seed_ids)
                    AND NONE(a IN arrived WHERE a.id = s.id AND a.act >= s.act)] AS better
  WITH arrived, added, capped, seed_ids, fresh, better, room, [b IN better | b.id] AS better_ids,
       CASE WHEN size(fresh) <= room THEN fresh
            ELSE reduce(top = [], x IN fresh |
                   ([t IN top WHERE t.act > x.act OR (t.act = x.act AND t.id < x.id)] + [x] + [t IN top WHERE NOT (t.act > x.act OR (t.act = x.act AND t.id < x.id))])[..room]) END AS admitted
  RETURN [a IN arrived WHERE NOT a.id IN better_ids] + better + admitted AS arrived4,
         [b IN better WHERE NOT b.id IN seed_ids] + admitted AS frontier4,
         added + size(admitted) AS added4, capped OR size(fresh) > room AS capped4
}
// a = evidence + edge activation; association seeds: the best member of each of the
// $session_seeds best sessions (by value, then higher id), and the $cue_seeds most active
// memories (by value, then lower id).
WITH visible, population, vector_hits, fulltext_hits, named, base, seed_ids, arrived4 AS edges, capped4 AS capped_edges
// Each entry of a also carries its evidence (b), whether it is a seed and its edge arrival:
// what the returned rows are cut by.
WITH visible, population, vector_hits, fulltext_hits, named, edges, capped_edges,
     [b IN base | {b: b, edge: head([e IN edges WHERE e.id = b.id])}] AS joined, seed_ids
WITH visible, population, vector_hits, fulltext_hits, named, capped_edges,
     [j IN joined | {id: j.b.id, v: j.b.act + coalesce(j.edge.act, 0.0), session: j.b.session, b: j.b.act,
                     seed: true, edge: j.edge}]
     + [e IN edges WHERE NOT e.id IN seed_ids | {id: e.id, v: e.act, session: null, b: 0.0, seed: false, edge: e}] AS a
CALL (a) {
  UNWIND CASE WHEN $max_nodes > 0 THEN a ELSE [] END AS x
  WITH x WHERE x.session IS NOT NULL
  WITH x.session AS session, collect(x) AS members
  WITH collect(reduce(b = null, x IN members |
                 CASE WHEN b IS NULL OR x.v > b.v OR (x.v = b.v AND x.id < b.id) THEN x ELSE b END)) AS bests
  RETURN reduce(top = [], x IN bests |
           ([t IN top WHERE t.v > x.v OR (t.v = x.v AND t.id > x.id)] + [x]
            + [t IN top WHERE NOT (t.v > x.v OR (t.v = x.v AND t.id > x.id))])[..$session_seeds]) AS best_sessions
}
WITH visible, population, vector_hits, fulltext_hits, named, capped_edges, a,
     [x IN best_sessions | {id: x.id, value: x.v}] AS reps,
     CASE WHEN $max_nodes > 0 THEN
       [x IN reduce(top = [], x IN a |
         ([t IN top WHERE t.v > x.v OR (t.v = x.v AND t.id < x.id)] + [x]
          + [t IN top WHERE NOT (t.v > x.v OR (t.v = x.v AND t.id < x.id))])[..$cue_seeds]) | {id: x.id, value: x.v}]
     ELSE [] END AS cue_seeds
// Associative spreading through shared cues: a session's best member passes $session_decay ×
// its value to every other member; a seed passes $cue_decay × its value × rarity through each
// keyword / name cue, rarity = ln(1 + N/degree) / ln(1 + N) (1 / degree when $inverse_rarity), cues shared by more than
// $max_cue_degree memories skipped, the strongest cues walked until their members add up to
// $cue_budget; each memory keeps its strongest arrival per kind; at most about $assoc_limit
// arrivals, the strongest (ties at the cut-off kept).
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
  RETURN collect({part: part, id: id, activation: activation, seed: seed, key: key}) AS found
}
CALL (found) {
  UNWIND found AS x
  RETURN percentileDisc(x.activation, CASE WHEN size(found) <= $assoc_limit THEN 0.0
                                           ELSE toFloat(size(found) - $assoc_limit - 1) / size(found) END) AS floor
}
WITH visible, population, vector_hits, fulltext_hits, named, capped_edges, a, reps,
     [x IN found WHERE floor IS NULL OR x.activation >= floor] AS associations
// Total = a + session + cue arrivals (a session's best member gets $session_decay × its own
// value in place of a session arrival) + the session prior; the memories that may rank in the top $rank_n.
// Per memory also what spreading added beyond its evidence, whether spreading reached it, its
// cue arrival, and its edge and association arrivals.
// The session prior: each session's best candidate evidence, × $session_prior, for every
// candidate of that session (none when $session_prior is 0).
CALL (a) {
  UNWIND CASE WHEN $session_prior > 0 THEN a ELSE [] END AS x
  WITH x WHERE x.seed AND x.session IS NOT NULL
  WITH x.session AS session, collect(x.id) AS members, max(x.b) AS best
  UNWIND members AS id
  RETURN collect({id: id, v: $session_prior * best}) AS prior
}
CALL (a, reps, associations, prior) {
  UNWIND [x IN a | {id: x.id, v: x.v, b: x.b, seed: x.seed, edge: x.edge, reached: x.edge IS NOT NULL}]
         + [r IN reps | {id: r.id, v: $session_decay * r.value, rep: true, reached: true}]
         + [x IN associations | {id: x.id, v: x.activation, via_session: x.part = 'session', reached: true, arrival: x}]
         + [p IN prior | {id: p.id, v: p.v, reached: false}] AS e
  WITH e.id AS id, collect(e) AS parts
  WITH id, parts, any(e IN parts WHERE e.rep) AS rep,
       reduce(s = 0.0, e IN parts | s + CASE WHEN e.b IS NULL THEN 0.0 ELSE e.b END) AS evidence
  RETURN collect({id: id, total: reduce(s = 0.0, e IN parts | s + CASE WHEN rep AND e.via_session THEN 0.0
                                                                       ELSE e.v END),
                  evidence: evidence, seed: any(e IN parts WHERE coalesce(e.seed, false)), reached: any(e IN parts WHERE e.reached),
                  edge: head([e IN parts WHERE e.edge IS NOT NULL | e.edge]),
                  cue: head([e IN parts WHERE e.arrival IS NOT NULL AND NOT e.via_session | e.v]),
                  arrivals: [e IN parts WHERE e.arrival IS NOT NULL | e.arrival]}) AS totals
}
CALL (totals) {
  UNWIND totals AS x
  RETURN percentileDisc(x.total, CASE WHEN size(totals) <= $rank_n THEN 0.0
                                      ELSE toFloat(size(totals) - $rank_n - 1) / size(totals) END) AS cut
}
CALL (visible, totals, cut) {
  UNWIND [x IN totals WHERE cut IS NULL OR x.total >= cut | x.id] AS id
  MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
  WHERE m.scope_key IN visible AND m.superseded_by IS NULL
  RETURN collect(m {.*, embedding: null, search_text: null, scope_tag: null}) AS nodes
}
// The rows returned are what the ranking, the activation log and the pending links read: the
// arrivals of the memories that may rank, of the $log_n that spreading added most to, and of
// the $max_pending strongest cue arrivals beyond the candidates (ties at each cut kept, and
// 1e-9 below the first two, which the engine recomputes); every arrival when $all_arrivals
// (person-centred evidence re-ranks the candidates after the statement).
WITH visible, population, vector_hits, fulltext_hits, named, capped_edges, reps, totals, cut, nodes,
     [x IN totals WHERE x.reached | x.total - x.evidence] AS added,
     [x IN totals WHERE x.cue IS NOT NULL AND NOT x.seed | x.cue] AS far
CALL (added) {
  UNWIND added AS x
  RETURN percentileDisc(x, CASE WHEN size(added) <= $log_n THEN 0.0
                                ELSE toFloat(size(added) - $log_n - 1) / size(added) END) AS log_cut
}
CALL (far) {
  UNWIND CASE WHEN $max_pending > 0 THEN far ELSE [] END AS x
  RETURN percentileDisc(x, CASE WHEN size(far) <= $max_pending THEN 0.0
                                ELSE toFloat(size(far) - $max_pending - 1) / size(far) END) AS far_cut
}
WITH visible, population, vector_hits, fulltext_hits, named, capped_edges, reps, nodes,
     reduce(n = 0, x IN totals | n + size(x.arrivals)) AS arrivals,
     [x IN totals WHERE $all_arrivals OR cut IS NULL OR x.total >= cut - 1e-9
                     OR (x.reached AND log_cut IS NOT NULL AND x.total - x.evidence >= log_cut - 1e-9)
                     OR (far_cut IS NOT NULL AND x.cue IS NOT NULL AND NOT x.seed AND x.cue >= far_cut)] AS kept
RETURN visible, population, vector_hits, fulltext_hits, named, [x IN kept WHERE x.edge IS NOT NULL | x.edge] AS edges,
       capped_edges, reps, reduce(s = [], x IN kept | s + x.arrivals) AS associations, arrivals, nodes
