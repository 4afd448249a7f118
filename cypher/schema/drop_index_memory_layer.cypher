// transaction: autocommit
// Schema step 3: no query plan uses this range index (EXPLAIN of every catalogued query on
// 10k memories chose none), and every index slows each write: databases made before step 3
// lose it.
DROP INDEX memory_layer IF EXISTS
