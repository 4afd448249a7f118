import sys, json
from hippograph.store import LocalNeo4j
s = LocalNeo4j("/tmp/writes4/db", heap="2g", pagecache_mb=1024)
if sys.argv[1] == "start":
    st = s.start(timeout=400)
    json.dump({"uri": str(st.uri), "password": s.password()}, open("/tmp/writes4/conn.json", "w"))
    print(st)
else:
    s.stop()
