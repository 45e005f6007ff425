"""ui/screens."""
