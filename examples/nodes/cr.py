"""Chang & Roberts 1979 on a unidirectional ring (docs/ALGORITHMS.md,
"chang-roberts"), as an electbench node program: run it with
    electbench run --node-cmd 'python3 cr.py' --topology ring --name cr-py
"""

from electbench_node import Node


class ChangRoberts(Node):
    participating = False

    def successor(self):
        return self.peers[0]["node"]

    def on_elect(self):
        self.participating = True
        self.send(self.successor(), {"type": "ELECTION", "rank": self.rank, "node": self.id})

    def on_message(self, src, body):
        if body["type"] == "ELECTED":
            self.participating = False
            if body["rank"] != self.rank:  # back at the leader: the run ends
                self.leader(body["node"])
                self.send(self.successor(), body)
            return
        r = body["rank"]
        if r == self.rank:
            # Our own ELECTION came back round: we are the leader.
            self.leader(self.id)
            self.send(self.successor(), {"type": "ELECTED", "rank": self.rank, "node": self.id})
        elif r > self.rank:
            self.participating = True
            self.send(self.successor(), body)
        elif not self.participating:
            self.participating = True
            self.send(self.successor(), {"type": "ELECTION", "rank": self.rank, "node": self.id})
        # else: a lower run while we take part: swallow it.


if __name__ == "__main__":
    ChangRoberts().run()
