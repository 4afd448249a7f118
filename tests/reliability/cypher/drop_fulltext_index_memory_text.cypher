// Test-only: drop the memory fulltext index, so that migrate() builds it afresh from the live
// memories (a Lucene index without the deleted documents its statistics still count).
DROP INDEX memory_text IF EXISTS
