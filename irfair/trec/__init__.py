"""Runs, qrels and topics in every shape IR users hold them, read into :class:`Run`, ``Qrels`` and :class:`Topic`.

Runs (:func:`as_runs`, :mod:`.runs`), each ranked by score (descending), ties by document id (descending),
trec_eval's rule, whatever the shape:

* a TREC run file (:mod:`.files`; topics :mod:`.topics`), or a :class:`Run` (its lists must agree with its scores);
* ``{qid: {doc_id: score}}``, the pytrec_eval/ranx/ir_measures dict: its key order is never used;
* ``{qid: [doc_id, ...]}``: an explicit ranking, best first;
* a DataFrame with ``qid`` or ``query_id``, ``docno`` or ``doc_id``, ``score`` and optionally ``rank``
  (PyTerrier, ir_measures); a rank column must agree with the scores;
* a ``ranx.Run``; a list of ir_measures ``ScoredDoc(query_id, doc_id, score)``;
* several runs as a list or as ``{name: run}``.

Qrels (:func:`as_qrels`, :mod:`.judgements`): a TREC qrels file, an ir_datasets id (:mod:`.irdatasets`),
``{qid: {doc_id: grade}}``, a DataFrame (``qid``/``query_id``, ``docno``/``doc_id``, ``label``/``relevance``),
a ``ranx.Qrels``, or ir_measures/ir_datasets ``Qrel(query_id, doc_id, relevance)`` records.

Topics (:func:`as_topics`): a TREC or ``qid<TAB>query`` file, an ir_datasets id, ``{qid: Topic | text}``, a
DataFrame (``qid``/``query_id`` and ``query``/``text``/``title``, optionally ``description``), or query
records (``query_id`` with ``title`` or ``text``, optionally ``description``).

Input that leaves a ranking open (a set of documents, a rank column that contradicts the scores, two id
columns that disagree) or cannot be read raises IrfairInputError with one line.
"""
from .files import Run, check_run_queries, natural_qid_key, read_run, trec_eval_order, write_run
from .judgements import as_qrels, as_topics
from .qrels import Qrels, read_qrels, relevant_docs, write_qrels
from .runs import as_runs, run_from_scores
from .topics import QUERY_FIELDS, Topic, read_topics, write_topics

__all__ = [
    "QUERY_FIELDS", "Qrels", "Run", "Topic", "as_qrels", "as_runs", "as_topics", "check_run_queries", "natural_qid_key",
    "read_qrels", "read_run", "read_topics", "relevant_docs", "run_from_scores", "trec_eval_order", "write_qrels", "write_run",
    "write_topics",
]
