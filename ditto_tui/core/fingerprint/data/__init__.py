"""Package data: the ditto/2 lowercase and whitespace tables, the html-distance atom table."""
