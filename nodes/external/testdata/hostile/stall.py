#!/usr/bin/env python3
"""A node program that stalls (issue 39, item 10): it answers init, then
never ends its "start" step (it sleeps for ten minutes)."""
import json
import sys
import time

for raw in sys.stdin:
    line = json.loads(raw)
    me, body = line["dest"], line["body"]
    if body["type"] == "init":
        print(json.dumps({"src": me, "dest": "eb", "body": {"type": "init_ok", "in_reply_to": 1}}), flush=True)
        continue
    time.sleep(600)
