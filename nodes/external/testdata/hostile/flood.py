#!/usr/bin/env python3
"""A node program that floods (issue 39, item 10).

At its first "start" it sends its successor small messages without end,
never ending the step; with "stderr" as its first argument it writes its
standard error without end instead.
"""
import json
import sys

what = sys.argv[1]
for raw in sys.stdin:
    line = json.loads(raw)
    me, body = line["dest"], line["body"]
    if body["type"] == "init":
        succ = body["peers"][0]["node"]
        print(json.dumps({"src": me, "dest": "eb", "body": {"type": "init_ok", "in_reply_to": 1}}), flush=True)
        continue
    if body["type"] == "start":
        msg = json.dumps({"src": me, "dest": succ, "body": {"type": "FLOOD", "pad": "x" * 100}}) + "\n"
        junk = "y" * 1000 + "\n"
        while True:
            if what == "stderr":
                sys.stderr.write(junk)
            else:
                sys.stdout.write(msg)
    print(json.dumps({"src": me, "dest": "eb", "body": {"type": "done"}}), flush=True)
