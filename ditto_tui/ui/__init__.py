"""Textual user interface: DittoApp (app.py), its screens and widgets, and app.tcss."""
