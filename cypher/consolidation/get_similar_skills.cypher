// transaction: read
// Phase 12 — procedural_promotion, the near-duplicate check: for each candidate ($rows: {i,
// visible, embedding}, visible = the candidate scope's own and ancestor keys) the skill it
// duplicates: visible from the candidate's scope (never a sibling's or a descendant's), not
// retracted, with an embedding of the same size, and a score (1 + cosine) / 2 >= $min_score.
// The shallowest such skill wins (an ancestor's skill covers a deeper scope's pattern), then
// the most similar.
CYPHER replan=skip
UNWIND $rows AS row
CALL (row) {
  MATCH (p:Memory:Procedural)
  WHERE p.scope_key IN row.visible
    AND p.embedding IS NOT NULL AND size(p.embedding) = size(row.embedding)
    AND NOT coalesce(p.retracted, false)
  WITH p, vector.similarity.cosine(p.embedding, row.embedding) AS score
  WHERE score >= $min_score
  RETURN p, score ORDER BY p.scope_depth, score DESC, p.id LIMIT 1
}
RETURN row.i AS i, p.id AS id, p.scope_key AS scope_key, p.label AS label, p.properties AS properties, score
