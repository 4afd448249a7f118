// The ranking: total = a + session + cue arrivals (a session's best member gets $session_decay ×
// its own value in place of a session arrival) + the session prior (each session's best
// candidate evidence × $session_prior, for every candidate of that session; none at 0); per
// memory also what spreading added beyond its evidence, whether spreading reached it, its cue
// arrival, and its edge and association arrivals. The memories that may rank in the top $rank_n
// (a few more on ties) are read whole but for the embedding and index-only text; superseded
// versions of a fact are history, not answers (they may carry activation, never rank).
// The rows returned are what the ranking, the activation log and the pending links read: the
// arrivals of the memories that may rank, of the $log_n that spreading added most to, and of
// the $max_pending strongest cue arrivals beyond the candidates (ties at each cut kept, and
// 1e-9 below the first two, which the engine recomputes); every arrival when $all_arrivals
// (person-centred evidence re-ranks the candidates after the statement). Nothing here sorts
// rows (a buffered row is charged all state in scope): orderings are aggregations and
// percentile cut-offs.
// in: visible, a, reps, assoc, capped4
// out: edges, capped_edges, associations, arrivals, nodes
CALL (visible, a, reps, assoc, capped4) {
  CALL (a) {
    UNWIND CASE WHEN $session_prior > 0 THEN a ELSE [] END AS x
    WITH x WHERE x.seed AND x.session IS NOT NULL
    WITH x.session AS session, collect(x.id) AS members, max(x.b) AS best
    UNWIND members AS id
    RETURN collect({id: id, v: $session_prior * best}) AS prior
  }
  CALL (a, reps, assoc, prior) {
    UNWIND [x IN a | {id: x.id, v: x.v, b: x.b, seed: x.seed, edge: x.edge, reached: x.edge IS NOT NULL}]
           + [r IN reps | {id: r.id, v: $session_decay * r.value, rep: true, reached: true}]
           + [x IN assoc | {id: x.id, v: x.activation, via_session: x.part = 'session', reached: true, arrival: x}]
           + [p IN prior | {id: p.id, v: p.v, reached: false}] AS e
    WITH e.id AS id, collect(e) AS parts
    WITH id, parts, any(e IN parts WHERE e.rep) AS rep,
         reduce(s = 0.0, e IN parts | s + CASE WHEN e.b IS NULL THEN 0.0 ELSE e.b END) AS evidence
    RETURN collect({id: id, total: reduce(s = 0.0, e IN parts | s + CASE WHEN rep AND e.via_session THEN 0.0
                                                                         ELSE e.v END),
                    evidence: evidence, seed: any(e IN parts WHERE coalesce(e.seed, false)),
                    reached: any(e IN parts WHERE e.reached),
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
    RETURN collect(m {.*, embedding: null, search_text: null, scope_tag: null, scope_lo: null, scope_hi: null}) AS nodes
  }
  WITH totals, cut, nodes, capped4,
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
  WITH nodes, capped4, reduce(n = 0, x IN totals | n + size(x.arrivals)) AS arrivals,
       [x IN totals WHERE $all_arrivals OR cut IS NULL OR x.total >= cut - 1e-9
                       OR (x.reached AND log_cut IS NOT NULL AND x.total - x.evidence >= log_cut - 1e-9)
                       OR (far_cut IS NOT NULL AND x.cue IS NOT NULL AND NOT x.seed AND x.cue >= far_cut)] AS kept
  RETURN [x IN kept WHERE x.edge IS NOT NULL | x.edge] AS edges, capped4 AS capped_edges,
         reduce(s = [], x IN kept | s + x.arrivals) AS associations, arrivals, nodes
}
