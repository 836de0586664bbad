"""`python -m verifier` runs the rulespec command."""

import sys

from .cli import main

sys.exit(main())
