"""The full GSR study of a collection: :class:`StudyConfig` and :func:`plan` (plan), the run files
(runs), one function per table (tables) and :func:`run_study` (core); its files and page are
:mod:`irfair.presentation.study_report`'s."""
from .core import StudyResult, run_study
from .plan import StudyConfig, SystemSpec, plan, short_name
from .tables import kendall_tau_distance

__all__ = ["StudyConfig", "StudyResult", "SystemSpec", "kendall_tau_distance", "plan", "run_study", "short_name"]
