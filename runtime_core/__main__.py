"""Entry point of `python -m runtime_core`."""
import sys

from .cli import main

sys.exit(main())
