"""irfair: audit search engines and classifiers for gender bias.

Python API (twin of the ``irfair`` command line)::

    import irfair
    result = irfair.audit(["bm25.run"], qrels="qrels.txt", topics="topics.txt",
                          corpus="docs.trec", embeddings="w2v-gnews-26k")
    result.table()        # GSR, CI, relative GSR, MAP, nDCG@100, P@10 per system
"""
from .audit import AuditResult, SystemAudit, audit
from .collection import Run, Topic, read_qrels, read_run, read_topics
from .corpus import open_corpus
from .embeddings import Embeddings, load_embeddings
from .errors import IrfairInputError
from .gender import DEFINITIONAL_PAIRS, GenderDirection, gender_direction
from .gsr import GSRResult

__all__ = [
    "AuditResult",
    "DEFINITIONAL_PAIRS",
    "Embeddings",
    "GSRResult",
    "GenderDirection",
    "IrfairInputError",
    "Run",
    "SystemAudit",
    "Topic",
    "audit",
    "gender_direction",
    "load_embeddings",
    "open_corpus",
    "read_qrels",
    "read_run",
    "read_topics",
]
__version__ = "0.1.0"
