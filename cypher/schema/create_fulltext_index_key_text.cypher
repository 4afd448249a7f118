// transaction: autocommit
// Schema step 6: the keys' text, with the same fields as memory_text (search_text, scope_tag,
// layer: the turn's), so recall's fulltext query ($lucene, its scope and layer filter inside
// Lucene) runs unchanged over keys.
CREATE FULLTEXT INDEX key_text IF NOT EXISTS
FOR (k:Key) ON EACH [k.search_text, k.scope_tag, k.layer]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
