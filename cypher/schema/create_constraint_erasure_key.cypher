// transaction: autocommit
// One marker per erase under way (see store/erase.py).
CREATE CONSTRAINT erasure_key IF NOT EXISTS FOR (e:Erasure) REQUIRE e.key IS UNIQUE
