"""Registers the workflow tests' fixture; everything else is in wfhelpers.py."""

from wfhelpers import workflow_copy

__all__ = ["workflow_copy"]
