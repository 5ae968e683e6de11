"""Padding ragged ranked lists and validating batches (irfair.measures.ranked)."""
from __future__ import annotations

import numpy as np
import pytest

from irfair.errors import IrfairInputError
from irfair.measures.ranked import as_batch, stack_ranked_lists, value_at_depth


def test_stack_pads_after_each_list():
    values, mask = stack_ranked_lists([np.array([1.0, 2.0]), np.array([]), np.array([3.0, 4.0, 5.0])], fill=-1.0)
    np.testing.assert_array_equal(values, [[1, 2, -1], [-1, -1, -1], [3, 4, 5]])
    np.testing.assert_array_equal(mask, [[True, True, False], [False, False, False], [True, True, True]])
    empty_values, empty_mask = stack_ranked_lists([])
    assert empty_values.shape == empty_mask.shape == (0, 0)


def test_as_batch_zeroes_padding_without_touching_the_input():
    counts = np.array([[1.0, 7.0], [2.0, 3.0]])
    mask = np.array([[True, False], [True, True]])
    (copy,), valid, lengths = as_batch({"counts": counts}, mask)
    np.testing.assert_array_equal(copy, [[1, 0], [2, 3]])
    np.testing.assert_array_equal(lengths, [1, 2])
    assert counts[0, 1] == 7.0
    np.testing.assert_array_equal(valid, mask)
    with pytest.raises(IrfairInputError, match="non-negative counts"):
        as_batch({"counts": np.array([[np.nan]])}, None)


def test_value_at_depth_reads_running_totals():
    """Running totals [[1, 3, 6]]: depth 2 → 3, depth 3 → 6, depth 0 → NaN."""
    values = value_at_depth(np.array([[1.0, 3.0, 6.0]]), np.array([[2, 3, 0]]))
    np.testing.assert_array_equal(values[:, :2], [[3, 6]])
    assert np.isnan(values[0, 2])
