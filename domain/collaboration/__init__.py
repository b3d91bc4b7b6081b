"""The collaboration game (docs/collaboration.md): two heads of LEGO car companies form
beliefs about a collaboration, exchange messages while privately updating their beliefs and
predicting each other's, then decide independently; points are computed by code."""
