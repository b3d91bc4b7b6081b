"""The game's example configs (``maai run ultimatum`` runs ``ultimatum.yaml``)."""
