// Which of the $visible scope keys are being erased (the erase's tombstone, store/erase.py):
// recall leaves them out from the moment an erase starts, before its batches finish.
MATCH (s:Scope)
WHERE s.key IN $visible AND s.erasing
RETURN s.key AS key
