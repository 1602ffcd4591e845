"""Import graphs for the layout tests: a cycle finder shared by the Python imports' test and the
Rust modules' test."""

from __future__ import annotations


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph (its nodes in order, the first repeated last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*stack[stack.index(m) :], m]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)):
            return found
    return None
