"""Example study files (docs/studies.md)."""
