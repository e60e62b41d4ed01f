"""Entry point of `python -m runtime_core`."""
import signal
import sys

from .cli import main

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `... | head` ends quietly, as a Unix tool should
sys.exit(main())
