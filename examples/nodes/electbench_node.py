"""A tiny helper for electbench node programs (docs/NODE-PROTOCOL.md).

Subclass Node, override the on_* handlers you need, and call run(). Each
input line is one step: the helper calls your handler, writes the lines it
produced, then ends the step with "done". Standard library only.

A Node declares "reuse" in its init_ok (docs/NODE-PROTOCOL.md, "Kept across
trials"): electbench may give the same process a fresh init for its next
trial instead of starting another. Each init then starts from a fresh
object: the instance's attributes are dropped and __init__ runs again, so
state kept on self never crosses trials. A subclass that keeps state
anywhere else (module globals, files) sets reuse = False.
"""

import json
import sys


class Node:
    maintenance = []  # message types that are not election messages
    reuse = True  # every trial's state is on self (see above)

    def __init__(self):
        self.id = None  # this node's name, n0 .. n{N-1}
        self.rank = None  # this node's rank; the greater wins
        self.peers = []  # [{"node", "rank", "id"}] as init gives them
        self.ring = []  # ring order from the successor (ring topologies)
        self.node_ids = []
        self.t_ms = 1.0
        self.params = {}
        self.seed = 0
        self._out = []

    # Handlers: override what the algorithm needs.
    def on_init(self, body):
        pass

    def on_start(self):
        pass

    def on_elect(self):
        pass

    def on_message(self, src, body):
        pass

    def on_timeout(self, timer):
        pass

    def on_suspect(self, node):
        pass

    # Actions, valid inside a handler.
    def send(self, dest, body):
        self._emit(dest, body)

    def set_timer(self, timer, ms):
        self._emit("eb", {"type": "set_timer", "timer": timer, "ms": ms})

    def cancel_timer(self, timer):
        self._emit("eb", {"type": "cancel_timer", "timer": timer})

    def leader(self, node):
        self._emit("eb", {"type": "leader", "leader": node})

    def log(self, text):
        self._emit("eb", {"type": "log", "text": text})

    def _emit(self, dest, body):
        self._out.append(json.dumps({"src": self.id, "dest": dest, "body": body}, separators=(",", ":")))

    def _flush(self, last):
        self._out.append(json.dumps({"src": self.id, "dest": "eb", "body": last}, separators=(",", ":")))
        sys.stdout.write("\n".join(self._out) + "\n")
        sys.stdout.flush()
        self._out = []

    def _step(self, line):
        msg = json.loads(line)
        body = msg["body"]
        kind = body.get("type")
        if msg.get("src") != "eb":
            self.on_message(msg["src"], body)
        elif kind == "init":
            if self.id is not None:
                # A fresh init: a new trial on this process. Nothing of the
                # last one is kept.
                self.__dict__.clear()
                type(self).__init__(self)
            self.id = body["node_id"]
            self.rank = body["rank"]
            self.peers = body["peers"]
            self.ring = body.get("ring", [])
            self.node_ids = body["node_ids"]
            self.t_ms = body["t_ms"]
            self.params = body.get("params", {})
            self.seed = body["seed"]
            self.on_init(body)
            self._flush({"type": "init_ok", "in_reply_to": body["msg_id"], "maintenance": self.maintenance,
                         "reuse": self.reuse})
            return
        elif kind == "start":
            self.on_start()
        elif kind == "elect":
            self.on_elect()
        elif kind == "timeout":
            self.on_timeout(body["timer"])
        elif kind == "suspect":
            self.on_suspect(body["node"])
        self._flush({"type": "done"})

    def run(self):
        for line in sys.stdin:
            if line.strip():
                self._step(line)
