// transaction: read
// Which of the $visible scope keys are being erased: at or below an (:Erasure) marker, the
// erase's tombstone (store/erase.py). Recall leaves them out from the moment an erase starts,
// before its batches finish.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
UNWIND $visible AS key
WITH key, erasing
WHERE any(gone IN erasing WHERE key = gone OR key STARTS WITH gone + '/')
RETURN key
