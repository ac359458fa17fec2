"""`python3 -m tools.impala_profile ...`: the entry point exsim execs (see cli.py)."""

import sys

from .cli import main

sys.exit(main())
