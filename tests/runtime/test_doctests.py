"""Run the examples in the runtime's, the Discord layer's and the data layer's docstrings."""

import doctest
import importlib

import pytest

MODULES = ["runtime.steps", "runtime.logs", "cogs.inputs", "cogs.custom_ids", "db.changes"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL)
    assert result.failed == 0 and result.attempted > 0
