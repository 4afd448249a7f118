// transaction: read
// The embedder the database's vectors were made with (on the schema's singleton node): its
// model id, dimensions and similarity, the property recall reads (embedding, or _embedding_next
// while a re-embedding has switched recall to the new vectors), and a re-embedding under way.
OPTIONAL MATCH (v:HippographSchema {id: 'hippograph'})
RETURN v.embedding_model AS model, v.embedding_dimensions AS dimensions,
       v.embedding_similarity AS similarity, v.embedding_property AS property,
       v.reembed_model AS reembed_model, v.reembed_dimensions AS reembed_dimensions,
       v.reembed_similarity AS reembed_similarity, v.reembed_phase AS reembed_phase,
       v.reembed_cursor AS reembed_cursor
