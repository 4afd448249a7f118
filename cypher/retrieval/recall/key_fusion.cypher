// Keys credited to their memories, in both channels: a memory a key was found for takes its best
// key's cosine / BM25 when higher than its own (the row then names the key); such a channel is
// ranked again (score, then id) and cut to $k. Without key hits a channel stays as it was.
// part: keys
// in: vector_fed, key_vector, text_own, key_text
// out: vector_hits = vector_fed, fulltext_hits = text_own
CALL (vector_fed, key_vector, text_own, key_text) {
  CALL (vector_fed, key_vector) {
    UNWIND CASE WHEN size(key_vector) = 0 THEN [] ELSE vector_fed + key_vector END AS h
    WITH h.id AS id, collect(h) AS hs
    WITH head([x IN hs WHERE x.key IS NULL]) AS own, head([x IN hs WHERE x.key IS NOT NULL]) AS via
    WITH CASE WHEN own IS NULL THEN via WHEN via IS NULL OR via.cosine <= own.cosine THEN own
              ELSE own {.*, cosine: via.cosine, key: via.key} END AS h
    ORDER BY h.cosine DESC, h.id
    LIMIT $k
    RETURN collect(h) AS fused_vector
  }
  CALL (text_own, key_text) {
    UNWIND CASE WHEN size(key_text) = 0 THEN [] ELSE text_own + key_text END AS h
    WITH h.id AS id, collect(h) AS hs
    WITH head([x IN hs WHERE x.key IS NULL]) AS own, head([x IN hs WHERE x.key IS NOT NULL]) AS via
    WITH CASE WHEN own IS NULL THEN via WHEN via IS NULL OR via.score <= own.score THEN own
              ELSE own {.*, score: via.score, key: via.key} END AS h
    ORDER BY h.score DESC, h.id
    LIMIT $k
    RETURN collect(h) AS fused_text
  }
  RETURN CASE WHEN size(key_vector) = 0 THEN vector_fed ELSE fused_vector END AS vector_hits,
         CASE WHEN size(key_text) = 0 THEN text_own ELSE fused_text END AS fulltext_hits
}
