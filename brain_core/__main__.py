import sys

from brain_core.cli import main

sys.exit(main())
