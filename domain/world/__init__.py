"""The world of locations and events, and the public-goods game on it (docs/world.md)."""
