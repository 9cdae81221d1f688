import sys

from firmware_gen.cli import main

sys.exit(main())
