"""The terminal commands of ``python -m game`` other than replay."""
