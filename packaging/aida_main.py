"""Entry point of the packaged app: the ``aida`` command; with no arguments (a double click), the tray."""

import sys

from brain_core.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["tray"]))
