// Test inspection: how many memories the whole database holds (nothing is deleted).
MATCH (m:Memory)
RETURN count(m) AS n
