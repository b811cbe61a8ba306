"""Run the examples in the engine's docstrings as tests."""

import doctest
import importlib
import pkgutil

import pytest

import tienlen

MODULES = sorted(
    name for _, name, _ in pkgutil.walk_packages(tienlen.__path__, prefix="tienlen.") if not name.endswith("__main__")
) + ["tienlen"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL)
    assert result.failed == 0
