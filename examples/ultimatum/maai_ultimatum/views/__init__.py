"""The game's read models, each in the module ``maai.projections.views.Views`` expects it in
(``report.py``: its sections of ``maai report`` and ``maai view``). It has no votes."""

from maai.projections.views import views_of

VIEWS = views_of(__name__)
