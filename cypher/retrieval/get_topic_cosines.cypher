// transaction: read
// Cosines of the given memories' embeddings to each of the topic vectors (person-centred
// recall: the named person's candidates against what the rest of the query asks).
// Parameters: $ids (memory ids), $visible (the scope's ancestor keys), $vectors (a list of
// vectors, each of the embedding's dimensions).
UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key IN $visible AND m.embedding IS NOT NULL
RETURN m.id AS id, [v IN $vectors | vector.similarity.cosine(m.embedding, v)] AS cosines
