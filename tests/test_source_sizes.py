"""Size limits on the workspace's Rust code outside tests: no source file over 800 lines and no
function over 100 lines, so that each file holds one concern and each function one step a reader
can follow. Test code (a crate's tests/ and benches/, `#[cfg(test)]` modules) is not counted.
The current exceptions are listed by name; they are to be split, not to grow."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from workspace import members

REPO = Path(__file__).resolve().parents[1]
MAX_FILE_LINES = 800
MAX_FN_LINES = 100

# Known exceptions, each "path" or "path::function" (to be split, never extended).
EXCEPTIONS: set[str] = {
}

FN = re.compile(r"^\s*(?:pub(?:\([\w:\s]+\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?"
                r"(?:extern\s+\"\w+\"\s+)?fn\s+(\w+)")
TEST_MOD = re.compile(r"^\s*#\[cfg\(test\)\]")


def code_only(line: str) -> str:
    """The line without string and character literals and `//` comments, for brace counting."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(?:\\.|[^'\\])'", "''", line)
    return line.split("//", 1)[0]


def block_end(lines: list[str], start: int) -> int:
    """The index of the line that closes the first brace opened at or after `start` (a `;` before
    any brace, a declaration without a body, ends at once)."""
    depth = 0
    opened = False
    for i in range(start, len(lines)):
        code = code_only(lines[i])
        for ch in code:
            if ch == "{":
                depth += 1
                opened = True
            elif ch == "}":
                depth -= 1
                if opened and depth == 0:
                    return i
            elif ch == ";" and not opened:
                return i
    return len(lines) - 1


def without_tests(lines: list[str]) -> list[str]:
    """The lines with every `#[cfg(test)]` item (a test module, a test-only function) removed."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if TEST_MOD.match(lines[i]):
            i = block_end(lines, i) + 1
            continue
        out.append(lines[i])
        i += 1
    return out


def functions(lines: list[str]) -> list[tuple[str, int]]:
    """Each function's name and its length in lines, from `fn` to its closing brace."""
    found = []
    for i, line in enumerate(lines):
        m = FN.match(code_only(line))
        if m:
            found.append((m.group(1), block_end(lines, i) - i + 1))
    return found


def rust_sources() -> list[Path]:
    """The non-test Rust sources of every workspace member (src/, build.rs)."""
    files: list[Path] = []
    for d in members(REPO):
        files += sorted((d / "src").rglob("*.rs"))
        if (d / "build.rs").exists():
            files.append(d / "build.rs")
    return files


def violations() -> list[str]:
    """Every file or function over its limit, as "path: N lines" or "path::fn: N lines"."""
    found = []
    for f in rust_sources():
        rel = f.relative_to(REPO).as_posix()
        lines = without_tests(f.read_text(encoding="utf-8").splitlines())
        if len(lines) > MAX_FILE_LINES and rel not in EXCEPTIONS:
            found.append(f"{rel}: {len(lines)} lines (at most {MAX_FILE_LINES})")
        for name, n in functions(lines):
            if n > MAX_FN_LINES and f"{rel}::{name}" not in EXCEPTIONS:
                found.append(f"{rel}::{name}: {n} lines (at most {MAX_FN_LINES})")
    return found


def test_no_file_or_function_over_its_limit() -> None:
    found = violations()
    assert not found, "split by concern:\n" + "\n".join(found)


def test_the_exceptions_are_still_needed() -> None:
    # An exception that no longer exceeds its limit is removed, so that the list only shrinks.
    stale = []
    for entry in EXCEPTIONS:
        path, _, name = entry.partition("::")
        lines = without_tests((REPO / path).read_text(encoding="utf-8").splitlines())
        if not name:
            over = len(lines) > MAX_FILE_LINES
        else:
            over = any(n > MAX_FN_LINES for f, n in functions(lines) if f == name)
        if not over:
            stale.append(entry)
    assert not stale, f"no longer over the limit, remove from EXCEPTIONS: {stale}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("fn a() {\n    let s = \"}\";\n    x();\n}\n", [("a", 4)]),
        ("pub(crate) fn b(x: u8)\n    -> u8\n{\n    // }\n    x\n}\n", [("b", 6)]),
        ("trait T {\n    fn c(&self);\n}\n", [("c", 1)]),
    ],
)
def test_functions_are_measured_to_their_closing_brace(source: str, expected: list[tuple[str, int]]) -> None:
    assert functions(source.splitlines()) == expected


def test_test_modules_are_not_counted() -> None:
    src = "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn long() {\n    }\n}\nfn b() {}\n"
    assert without_tests(src.splitlines()) == ["fn a() {}", "fn b() {}"]
