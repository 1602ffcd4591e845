from __future__ import annotations

from pathlib import Path

import pytest

from analysis.cli import DEFAULT_PAPER_DIR


@pytest.fixture(scope="session")
def paper_dir() -> Path:
    if not DEFAULT_PAPER_DIR.is_dir():
        pytest.fail(f"paper sample reports not found at {DEFAULT_PAPER_DIR}")
    return DEFAULT_PAPER_DIR
