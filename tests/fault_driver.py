"""Run one irfair job in a real process and stop that process hard at a chosen point (tests only).

    python fault_driver.py KIND POINT SIGNAL CACHE_DIR [ARGS...]

KIND names what is built (``embeddings FILE``, ``terms CORPUS``, ``docvectors CORPUS``, ``debiased FILE``,
``lucene CORPUS``, ``cli ARGV...``); POINT where the process is stopped: ``build`` (inside the build of
the entry, while its files are written), ``manifest`` (files written, manifest not yet), ``swap`` (the old
entry moved aside, the new one not yet in place), ``published`` (published, lock still held),
``outputs`` (the fifth output file of ``--out`` written into its staging folder, the others not yet) or
``jvm`` (a tf-idf search has run in this process's JVM, the run file not yet written) or ``none`` (a term
store is published every 100 documents here, and stopped at its second publication);
SIGNAL is ``KILL`` (SIGKILL: nothing runs after it), ``INT`` (Ctrl-C), ``TERM`` (kill, timeout, Slurm,
systemd) or ``HUP`` (a closed terminal). The stop comes from the process itself, at exactly that point,
so the tests are deterministic. POINT ``fsize=N`` instead stops nothing: files written by the process
cannot grow past N bytes (writes beyond fail with EFBIG, as on a full disk).
"""
from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

SIGNALS = {"KILL": signal.SIGKILL, "INT": signal.SIGINT, "TERM": signal.SIGTERM, "HUP": signal.SIGHUP}


def stop(sig: int) -> None:
    os.kill(os.getpid(), sig)
    if sig != signal.SIGKILL:
        return  # the handler raises at the next bytecode (KeyboardInterrupt, or the CLI's Terminated)
    raise AssertionError("still alive after SIGKILL")


def patch_generic(point: str, sig: int, nth: int) -> None:
    """Stop at ``point`` of the ``nth`` publication (earlier ones go through)."""
    from irfair.cache import entry

    calls = []
    write_manifest, swap_in, publish = entry._write_manifest, entry._swap_in, entry.CacheEntry.publish

    def manifest(staging, written):
        calls.append(1)
        if len(calls) == nth:
            stop(sig)
        write_manifest(staging, written)

    def swap(staging, folder, aside):
        calls.append(1)
        if len(calls) < nth:
            return swap_in(staging, folder, aside)
        if folder.exists():
            os.rename(folder, aside)
        stop(sig)

    def published(self, *args, **kwargs):
        done = publish(self, *args, **kwargs)
        calls.append(1)
        if len(calls) == nth:
            stop(sig)
        return done

    if point == "manifest":
        entry._write_manifest = manifest
    elif point == "swap":
        entry._swap_in = swap
    elif point == "published":
        entry.CacheEntry.publish = published


def patch_outputs(sig: int, nth: int = 5) -> None:
    """Stop once the ``nth`` output file of the command has been written into its staging folder."""
    from irfair import atomic

    write_outputs = atomic.write_outputs

    def stopping(out_dir, writers):
        calls = []

        def wrapped(write):
            def run(path):
                write(path)
                calls.append(path)
                if len(calls) == nth:
                    stop(sig)
            return run
        return write_outputs(out_dir, {name: wrapped(write) for name, write in writers.items()})
    atomic.write_outputs = stopping


def limit_file_size(limit: int) -> None:
    """Writes past ``limit`` bytes fail with EFBIG (SIGXFSZ ignored): every writer meets a full disk."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def patch_build(kind: str, sig: int) -> None:
    """Stop inside the build of ``kind``, with some of its files half written."""
    if kind in ("embeddings", "debiased"):
        import irfair.embeddings as embeddings

        def half_written(path, vectors):
            Path(path).write_bytes(b"\x93NUMPY half")
            stop(sig)
        embeddings._write_vectors = half_written
    elif kind == "terms":
        import irfair.corpus.termstore as termstore

        calls = []
        write_shard = termstore.write_shard

        def third_shard(folder, ids, block):
            calls.append(folder)
            if len(calls) == 3:
                (folder / "indptr.npy").write_bytes(b"\x93NUMPY half")
                stop(sig)
            write_shard(folder, ids, block)
        termstore.write_shard = third_shard
    elif kind == "docvectors":
        from irfair.rankers.embedding import EmbeddingRanker

        compute = EmbeddingRanker._compute_vectors

        def computed(self, progress):
            compute(self, progress)
            stop(sig)
        EmbeddingRanker._compute_vectors = computed
    elif kind == "lucene":
        import irfair.corpus.lucene_index as lucene_index

        write_json = lucene_index._write_json

        def written(*args):
            write_json(*args)
            stop(sig)
        lucene_index._write_json = written


def patch_jvm(sig: int) -> None:
    """Stop once Lucene has searched in this process's JVM (started by jnius: its signal handlers are the ones
    Java installs unless it runs with -Xrs)."""
    from irfair.rankers import lexical

    search = lexical.LexicalRanker._search_jnius

    def searched(self, texts, depth):
        found = search(self, texts, depth)
        stop(sig)
        return found

    lexical.LexicalRanker._search_jnius = searched


def run(kind: str, cache: Path, args: list[str]) -> int:
    if kind == "cli":
        from irfair.cli import main

        return main(args)
    from irfair.corpus import TermStore, open_corpus
    from irfair.embeddings import load_embeddings

    if kind == "embeddings":
        load_embeddings(args[0], cache)
    elif kind == "terms":
        corpus = open_corpus(args[0])
        TermStore.for_corpus(corpus, cache).ensure(corpus, None, progress=False)
    elif kind == "docvectors":
        from irfair.rankers.embedding import EmbeddingRanker

        corpus = open_corpus(args[0])
        store = TermStore.for_corpus(corpus, cache)
        store.ensure(corpus, None, progress=False)
        EmbeddingRanker(store, load_embeddings(args[1], cache), "si", cache, corpus_key=corpus.name)
    elif kind == "debiased":
        from irfair.gender.debias import debiased

        debiased(load_embeddings(args[0]), "hard", cache)
    elif kind == "lucene":
        from irfair.corpus.lucene_index import build_index

        build_index(open_corpus(args[0]), cache, threads=1, progress=False)
    return 0


def main() -> int:
    kind, point, sig_name, cache, *args = sys.argv[1:]
    sig = SIGNALS[sig_name]
    if sig == signal.SIGINT:
        # Ctrl-C as a terminal delivers it: a shell that starts a job in the background (`make test &`)
        # ignores SIGINT for it, and Python then keeps it ignored
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if kind in ("terms", "cli"):
        import irfair.corpus.termstore as termstore

        termstore.DEFAULT_SHARD_SIZE = 100  # several publications of one store
    if point == "build":
        patch_build("terms" if kind == "cli" else kind, sig)
    elif point == "outputs":
        patch_outputs(sig)
    elif point == "jvm":
        patch_jvm(sig)
    elif point.startswith("fsize="):
        limit_file_size(int(point.split("=")[1]))
    elif point != "none":
        patch_generic(point, sig, nth=2 if kind == "terms" else 1)
    return run(kind, Path(cache), args)


if __name__ == "__main__":
    sys.exit(main())
