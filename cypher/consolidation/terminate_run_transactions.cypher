// transaction: autocommit
// After a cancelled run: stop its statements still running on the server (a closed socket
// alone may let a batch job go on), found by the run id every phase query carries.
SHOW TRANSACTIONS YIELD transactionId, parameters
WHERE parameters.run_id = $cancelled_run
TERMINATE TRANSACTIONS transactionId
YIELD transactionId AS terminated
RETURN collect(terminated) AS terminated
