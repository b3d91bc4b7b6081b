"""The game's read models (``maai.domain.experiment.ExperimentViews``), each in the module
``maai.projections.views.Views`` expects it in. The game has no votes and no report sections."""

from maai.projections.views import views_of

VIEWS = views_of(__name__)
