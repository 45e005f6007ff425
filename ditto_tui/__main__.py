"""Allow ``python -m ditto_tui``."""

from ditto_tui.launch import main

raise SystemExit(main())
