// transaction: write
// Record the embedder of the database's vectors and the property recall reads ($model may be
// null: an embedder that names no model, a test stand-in, is checked by its dimensions only).
MERGE (v:HippographSchema {id: 'hippograph'})
SET v.embedding_model = $model, v.embedding_dimensions = $dimensions,
    v.embedding_similarity = $similarity, v.embedding_property = $property
RETURN v.embedding_dimensions AS dimensions
