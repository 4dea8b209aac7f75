"""A planted bug for hunt's tests: the example bully (examples/nodes/bully.py)
that ignores SUSPECT, the detector's word that a process crashed. When the
leader crashes after it was elected, nobody starts a new election: every
live process goes on believing the crashed leader. The trial is safe and
live (every live process decided, and they agree), only not correct.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "nodes"))

from bully import Bully  # noqa: E402


class BullyIgnoringSuspicion(Bully):
    def on_suspect(self, node):
        pass


if __name__ == "__main__":
    BullyIgnoringSuspicion().run()
