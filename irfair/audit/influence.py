"""Which queries carry a system's GSR: the leave-one-out change of GSR for each query it uses, so a reader
sees when one query moves a result (:func:`irfair.measures.resampling.jackknife_slopes`)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..measures.gsr import ZERO_SLOPE, GSRResult
from ..measures.resampling import jackknife_slopes
from ..numbers import settled

INFLUENCE_COLUMNS = ("qid", "query", "gsr_without", "change", "change_pct")
TOP_QUERIES = 5


def influence(gsr: GSRResult, top: int = TOP_QUERIES) -> pd.DataFrame:
    """The ``top`` queries whose removal changes this GSR most: ``gsr_without`` (GSR without the query),
    ``change`` = gsr_without − GSR and ``change_pct`` = 100 · change / |GSR| (NaN when GSR is 0), largest
    |change| first; empty with fewer than 3 queries."""
    used = gsr.per_query[gsr.per_query["used"]]
    x = used["query_genderedness"].to_numpy(dtype=np.float64)
    y = used["list_genderedness"].to_numpy(dtype=np.float64)
    without = jackknife_slopes(x, y)
    if len(x) < 3 or not np.isfinite(gsr.slope):
        return pd.DataFrame(columns=list(INFLUENCE_COLUMNS))
    change = without - gsr.slope
    scale = abs(gsr.slope)
    order = np.argsort(-settled(np.nan_to_num(np.abs(change), nan=-1.0)), kind="stable")[:top]  # noise: query order
    return pd.DataFrame({
        "qid": used["qid"].to_numpy()[order], "query": used["query"].to_numpy()[order], "gsr_without": without[order],
        "change": change[order], "change_pct": 100.0 * change[order] / scale if scale >= ZERO_SLOPE else np.nan,
    }, columns=list(INFLUENCE_COLUMNS)).reset_index(drop=True)
