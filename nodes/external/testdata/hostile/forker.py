#!/usr/bin/env python3
"""A node program that leaves a child behind (issue 39, item 5).

At init it forks a child that sleeps for a minute holding the program's
standard error; with "setsid" as its first argument the child first leaves
the program's session and process group. The child's pid is written to the
file named by the second argument. The program itself answers every step
with "done", and exits when its standard input closes.
"""
import json
import os
import sys
import time

setsid, pidfile = sys.argv[1] == "setsid", sys.argv[2]
for raw in sys.stdin:
    line = json.loads(raw)
    me, body = line["dest"], line["body"]
    if body["type"] == "init":
        pid = os.fork()
        if pid == 0:
            if setsid:
                os.setsid()
            time.sleep(60)
            os._exit(0)
        with open(pidfile + "." + me, "w") as f:
            f.write(str(pid))
        out = {"type": "init_ok", "in_reply_to": 1}
    else:
        out = {"type": "done"}
    print(json.dumps({"src": me, "dest": "eb", "body": out}), flush=True)
