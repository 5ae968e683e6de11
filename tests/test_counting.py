"""The C-speed term counting gives exactly the tokens and counts of irfair.text, in one process or several."""
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irfair.corpus import open_corpus
from irfair.corpus.counting import TermCounter, count_batch, count_in_parallel
from irfair.text import content_tokens, default_stopwords

STOP = default_stopwords()
TRICKY = [
    "The Nurse's 2nd shift: x2 a_b HELLO-world e-mail co-op I a",  # digits, underscore, one letter, apostrophe
    "Straße naïve CAFÉ İstanbul ǅemal Ωmega 3d ½ ²nd",  # Unicode letters, case, digit-like signs
    "", "   ", "1234 5678", "he said she said HIS hers",  # empty, digits only, gendered function words stay
]


def _rows(block, vocab):
    indptr, indices, counts = block
    return [{vocab[c]: int(n) for c, n in zip(indices[a:b], counts[a:b])} for a, b in zip(indptr[:-1], indptr[1:])]


def _expected(texts):
    return [dict(Counter(content_tokens(text, STOP))) for text in texts]


def test_every_token_kind_is_counted_as_irfair_tokenises():
    """ASCII (digits, underscore, one letter, apostrophe, a 17-letter token), Unicode, empty and digit-only texts."""
    texts = TRICKY + ["Internationalisation counterrevolutionaries x internationalisations"]
    terms, block = count_batch(texts, STOP)
    assert _rows(block, terms) == _expected(texts)
    assert "internationalisation" in terms and "counterrevolutionaries" in terms  # longer than 16 letters


def test_counts_equal_the_reference_on_real_collections(shared_data):
    texts = [text for _, text in open_corpus(shared_data / "time" / "time.trec").iter_docs()] + TRICKY
    counter = TermCounter(STOP, [], {})
    block = counter.count(texts)
    assert _rows(block, counter.vocab) == _expected(texts)
    indptr, indices, _ = block
    assert all(np.all(np.diff(indices[a:b]) > 0) for a, b in zip(indptr[:-1], indptr[1:]))  # canonical CSR
    assert len(counter.vocab) == len(set(counter.vocab)) and "she" in counter.term_id and "the" not in counter.term_id


def test_parallel_counting_assigns_the_same_columns_in_the_same_order(shared_data):
    texts = [text for _, text in open_corpus(shared_data / "vaswani" / "corpus").iter_docs()][:3000] + TRICKY
    batches = [texts[i:i + 500] for i in range(0, len(texts), 500)]
    one = TermCounter(STOP, [], {})
    sequential = [one.count(batch) for batch in batches]
    two = TermCounter(STOP, [], {})
    parallel = list(count_in_parallel(batches, two, jobs=2))
    assert two.vocab == one.vocab
    for a, b in zip(sequential, parallel):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_a_growing_vocabulary_keeps_earlier_columns():
    counter = TermCounter(STOP, ["nurse"], {"nurse": 0})
    block = counter.count(["the doctor and the nurse", "nurse nurse"])
    assert counter.vocab == ["nurse", "doctor"] and _rows(block, counter.vocab) == [{"doctor": 1, "nurse": 1}, {"nurse": 2}]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.one_of(st.text(max_size=60), st.text(st.characters(max_codepoint=127), max_size=300),
                          st.text("aZ9_- \n.", max_size=300)), max_size=6))
def test_any_text_counts_like_the_reference(texts):
    counter = TermCounter(STOP, [], {})
    assert _rows(counter.count(texts), counter.vocab) == _expected(texts)


def test_counting_on_a_two_worker_dask_cluster_equals_one_process(shared_data):
    texts = [text for _, text in open_corpus(shared_data / "time" / "time.trec").iter_docs()] + TRICKY
    batches = [texts[i:i + 100] for i in range(0, len(texts), 100)]
    one = TermCounter(STOP, [], {})
    sequential = [one.count(batch) for batch in batches]
    dask = TermCounter(STOP, [], {})
    distributed = list(count_in_parallel(batches, dask, jobs=2, scheduler="local"))
    assert dask.vocab == one.vocab
    for a, b in zip(sequential, distributed):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
