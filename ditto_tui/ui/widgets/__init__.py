"""Widgets of the explorer: one per module (KSlider, FamilyTable, BitDiff, SideBySideDiff, ...)."""
