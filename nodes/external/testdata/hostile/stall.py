#!/usr/bin/env python3
"""A node program that stalls (issue 39, item 10): it answers init, then
never ends its "start" step (it sleeps for ten minutes). With an argument,
it creates that file as it begins to stall."""
import json
import sys
import time

marker = sys.argv[1] if len(sys.argv) > 1 else None

for raw in sys.stdin:
    line = json.loads(raw)
    me, body = line["dest"], line["body"]
    if body["type"] == "init":
        print(json.dumps({"src": me, "dest": "eb", "body": {"type": "init_ok", "in_reply_to": 1}}), flush=True)
        continue
    if marker:
        open(marker, "w").close()
    time.sleep(600)
