"""Garcia-Molina's bully election as taught (docs/ALGORITHMS.md, "bully"),
as an electbench node program on the complete topology: run it with
    electbench run --node-cmd 'python3 bully.py' --topology complete --name bully-py
Parameters t1 and t2 (default 2T and 5T) are read from --param as typed.
"""

from electbench_node import Node


def duration_ms(text, t_ms):
    """Reads "5ms", "1.5s" or a multiple of T such as "2T", in milliseconds."""
    text = text.strip()
    if text.endswith("T"):
        return float(text[:-1] or 1) * t_ms
    for unit, scale in (("ms", 1.0), ("us", 1e-3), ("µs", 1e-3), ("ns", 1e-6), ("s", 1e3)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    raise ValueError("bad duration %r" % text)


class Bully(Node):
    IDLE, ELECTING, AWAITING = range(3)

    def on_init(self, body):
        self.t1 = duration_ms(self.params.get("t1", "2T"), self.t_ms)
        self.t2 = duration_ms(self.params.get("t2", "5T"), self.t_ms)
        self.rank_of = {p["node"]: p["rank"] for p in self.peers}
        self.higher = [p["node"] for p in self.peers if p["rank"] > self.rank]
        self.lower = [p["node"] for p in self.peers if p["rank"] < self.rank]
        self.suspected = set()
        top = max(self.peers, key=lambda p: p["rank"])
        self.leader_node = top["node"] if top["rank"] > self.rank else self.id
        self.state = self.IDLE

    def running(self):
        return self.state != self.IDLE

    def elect(self):
        if not [q for q in self.higher if q not in self.suspected]:
            self.announce()
            return
        self.state = self.ELECTING
        self.cancel_timer("T2")
        for q in self.higher:  # suspected ones included
            self.send(q, {"type": "ELECTION"})
        self.set_timer("T1", self.t1)

    def announce(self):
        self.state = self.IDLE
        self.leader_node = self.id
        self.cancel_timer("T1")
        self.cancel_timer("T2")
        self.leader(self.id)
        for q in self.lower:
            self.send(q, {"type": "COORDINATOR", "leader": self.id})

    def on_elect(self):
        if not self.running():
            self.elect()

    def on_suspect(self, node):
        if node in self.suspected:
            return
        self.suspected.add(node)
        if node == self.leader_node and not self.running():
            self.elect()

    def on_message(self, src, body):
        kind = body["type"]
        if kind == "ELECTION":
            self.send(src, {"type": "OK"})
            if not self.running():
                self.elect()
        elif kind == "OK":
            if self.state == self.ELECTING:
                self.state = self.AWAITING
                self.cancel_timer("T1")
                self.set_timer("T2", self.t2)
        elif kind == "COORDINATOR":
            self.state = self.IDLE
            self.leader_node = body["leader"]
            self.cancel_timer("T1")
            self.cancel_timer("T2")
            self.leader(body["leader"])

    def on_timeout(self, timer):
        if timer == "T1" and self.state == self.ELECTING:
            self.announce()
        elif timer == "T2" and self.state == self.AWAITING:
            self.elect()


if __name__ == "__main__":
    Bully().run()
