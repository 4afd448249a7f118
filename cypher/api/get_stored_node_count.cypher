// transaction: read
// How many nodes the database holds besides hippograph's schema record (an offline import
// loads only into a database where this is 0).
MATCH (n)
WHERE NOT n:HippographSchema
RETURN count(n) AS nodes
