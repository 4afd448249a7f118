// transaction: read
// The memories a recall ranks highest, whole (but for the embedding and index-only text).
// Superseded versions of a fact are history, not answers: they stay out of recall (the
// layer's history() and as_of() read them).
UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key IN $visible AND m.superseded_by IS NULL
RETURN m {.*, embedding: null, search_text: null, scope_tag: null, scope_lo: null, scope_hi: null} AS m
