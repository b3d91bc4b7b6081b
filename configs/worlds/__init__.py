"""World files (docs/world.md §1) that the packaged world configs name."""
