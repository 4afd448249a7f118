// Benchmark inspection (load_open_loop): the server JVM's heap, and its old generation's size after
// the last collection (the live data, garbage left out), from the JMX beans, over Bolt.
CALL dbms.queryJmx("java.lang:type=Memory") YIELD attributes AS memory
WITH memory.HeapMemoryUsage.value.properties AS heap
OPTIONAL CALL dbms.queryJmx("java.lang:type=MemoryPool,name=*Old Gen") YIELD attributes AS pool
RETURN heap.used AS heap_used, heap.committed AS heap_committed, heap.max AS heap_max,
       pool.CollectionUsage.value.properties.used AS old_gen_after_gc
