"""Allow ``python -m ditto_tui``."""

from ditto_tui.cli import main

raise SystemExit(main())
