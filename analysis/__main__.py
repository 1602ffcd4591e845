"""`python -m analysis`: see analysis.cli."""

import sys

from analysis.cli import main

sys.exit(main())
