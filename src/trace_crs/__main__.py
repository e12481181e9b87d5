import sys

from trace_crs.cli import main

sys.exit(main())
