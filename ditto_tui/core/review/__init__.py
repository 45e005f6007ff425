"""Review rules: which members a review keeps (``keep``) and how stored decisions find
their documents again (``decisions``)."""
