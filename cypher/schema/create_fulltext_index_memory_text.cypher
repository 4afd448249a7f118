// transaction: autocommit
// search_text is what recall matches; scope_tag (digits of a hash of scope_key) and layer let a
// query restrict itself to the visible scopes and layers inside Lucene, so a small scope is
// never starved by bigger tenants in the index's top hits.
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS
FOR (m:Memory) ON EACH [m.search_text, m.scope_tag, m.layer]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
