// Test brute force: every fulltext hit of the unrestricted query, filtered afterwards to the
// visible scopes (what a scope filter must reproduce, in the same order and with the same scores).
CALL db.index.fulltext.queryNodes('memory_text', $lucene) YIELD node, score
WITH node, score
WHERE node.scope_key IN $visible
RETURN node.id AS id, score
ORDER BY score DESC, id
