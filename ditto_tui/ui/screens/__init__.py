"""Screens of the explorer: main, compare, neighbours, help, document picker, export dialog."""
