"""A planted bug for hunt's tests: the example bully (examples/nodes/bully.py)
that never arms T2, the timer a process that got an OK waits on for the
COORDINATOR. When the higher process that answered OK crashes before it
announces, the process waits for ever: a crash leaves it undecided.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "nodes"))

from bully import Bully  # noqa: E402


class BullyWithoutT2(Bully):
    def set_timer(self, timer, ms):
        if timer != "T2":
            super().set_timer(timer, ms)


if __name__ == "__main__":
    BullyWithoutT2().run()
