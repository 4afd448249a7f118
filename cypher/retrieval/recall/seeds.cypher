// The association seeds: the best member of each of the $session_seeds best sessions (by
// value, then higher id), and the $cue_seeds most active memories (by value, then lower id).
// part: activation
// in: a
// out: reps = [], cue_seeds = []
CALL (a) {
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
  RETURN [x IN best_sessions | {id: x.id, value: x.v}] AS reps,
         CASE WHEN $max_nodes > 0 THEN
           [x IN reduce(top = [], x IN a |
             ([t IN top WHERE t.v > x.v OR (t.v = x.v AND t.id < x.id)] + [x]
              + [t IN top WHERE NOT (t.v > x.v OR (t.v = x.v AND t.id < x.id))])[..$cue_seeds]) | {id: x.id, value: x.v}]
         ELSE [] END AS cue_seeds
}
