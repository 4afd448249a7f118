// The memories a recall ranks highest, whole (but for the embedding and index-only text).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.scope_key IN $visible
RETURN m {.*, embedding: null, search_text: null, scope_tag: null} AS m
