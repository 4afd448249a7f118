// transaction: read
// The vector indexes with the property they cover and their dimensions (an index made before
// the database recorded its embedder is adopted at its own size).
SHOW VECTOR INDEXES YIELD name, state, properties, options
RETURN name, state, properties, options.indexConfig.`vector.dimensions` AS dimensions,
       options.indexConfig.`vector.similarity_function` AS similarity
