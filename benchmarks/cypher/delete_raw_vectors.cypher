// writes_limit: remove the raw insert's nodes (on a server the harness did not start).
MATCH (v:RawVectorBench)
CALL (v) { DETACH DELETE v } IN TRANSACTIONS OF 5000 ROWS
