"""Errors raised by the analysis package.

A malformed or truncated report must tell the user where and what: the file, the line (1-based,
or the line after the last one for a truncated file) and what the parser expected there.
"""

from __future__ import annotations

from pathlib import Path


class ReportError(ValueError):
    """A report (text or JSON) that does not have the expected shape."""

    def __init__(self, path: str | Path, line: int | None, expected: str, found: str | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.expected = expected
        self.found = found
        where = f"{self.path}:{line}" if line is not None else self.path
        msg = f"{where}: expected {expected}"
        if found is not None:
            msg += f", found {found!r}"
        super().__init__(msg)


class ConfigError(ValueError):
    """A configuration value the analysis cannot use."""
