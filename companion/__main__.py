import sys

from willughby.companion.cli import main

sys.exit(main())
