"""The two-player ultimatum game, a maai experiment installed as a plug-in."""
