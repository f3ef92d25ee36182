"""Unknown keywords in Python's words: ``TypeError`` naming the function, the keyword and the
closest keyword the function takes (``atoll`` → ``atol``)."""

from __future__ import annotations

import difflib
import functools
import inspect
import re
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_UNEXPECTED = re.compile(r"unexpected keyword argument '(\w+)'")


def suggest_keywords(fn: F) -> F:
    """``fn`` whose ``TypeError`` for an unknown keyword also names the closest keyword."""
    try:
        names = [
            p.name
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]
    except (TypeError, ValueError):
        return fn
    name = getattr(fn, "__name__", "function")

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        unknown = [k for k in kwargs if k not in names]
        if unknown:
            key = unknown[0]
            close = difflib.get_close_matches(key, names, 1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'{hint}")
        return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
