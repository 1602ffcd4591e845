"""A Rust crate's module graph, read from its sources the way the layout test needs it: which
source file's module names which other file's module.

A file module is a `.rs` file under `src/` (`lib.rs`, `main.rs` and `mod.rs` stand for their
directory). An arrow runs from a file to the file of every module its paths reach: `use` trees
(braces expanded) and the paths written inline in code, starting at `crate::`, `super::`,
`self::` or one of the module's own children. A path to one of the file's own ancestors is not
an arrow: a parent declares its children (`mod x;`) and re-exports them, so a child naming its
parent's items is the tree itself, not a loop. Test-only code (files named `tests.rs`, items
after `#[cfg(test)]`) is left out: the loops that matter are the library's.
"""

from __future__ import annotations

import re
from pathlib import Path

COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
STRING_RE = re.compile(r'b?"(?:\\.|[^"\\])*"')
USE_RE = re.compile(r"\buse\s+([^;]+);")
PATH_RE = re.compile(r"(?<![\w:])(?:r#)?\w+(?:\s*::\s*(?:r#)?\w+)+")
TEST_ITEM_RE = re.compile(r"#\[cfg\(test\)\]")


def module_of(src: Path, f: Path) -> tuple[str, ...]:
    """The module path (below `crate`) of source file `f` of the crate whose `src/` is `src`."""
    parts = f.relative_to(src).with_suffix("").parts
    if parts[-1] in ("lib", "main", "mod"):
        parts = parts[:-1]
    return tuple(parts)


def code_of(text: str) -> str:
    """The file's code without comments, string literals and test-only items (each item after a
    `#[cfg(test)]`: up to its `;`, or its whole `{ ... }` block)."""
    text = STRING_RE.sub('""', COMMENT_RE.sub(" ", text))
    while (m := TEST_ITEM_RE.search(text)) is not None:
        i, depth = m.end(), 0
        while i < len(text):
            ch = text[i]
            i += 1
            if ch == ";" and depth == 0:
                break
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    break
        text = text[: m.start()] + text[i:]
    return text


def expand(tree: str) -> list[str]:
    """The paths of one `use` tree: `a::{b, c::{d, e}}` is a::b, a::c::d and a::c::e."""
    tree = re.sub(r"\s+", "", tree)
    if "{" not in tree:
        return [re.sub(r"as\w+$", "", tree)]
    head, body = tree[: tree.index("{")], tree[tree.index("{") + 1 : tree.rindex("}")]
    items, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    items.append(body[start:])
    return [p for item in items if item for p in expand(head + item)]


def resolve(here: tuple[str, ...], path: str, children: set[str]) -> tuple[str, ...] | None:
    """The module path a path names: from the crate's root (`crate::`), this module (`self::`,
    or a path starting with one of its `children`) or its parent (`super::`); None for a path
    outside the crate (`std::`, a dependency's)."""
    segs = [s.removeprefix("r#") for s in re.sub(r"\s+", "", path).split("::") if s]
    if not segs:
        return None
    base: tuple[str, ...]
    if segs[0] == "crate":
        base = ()
    elif segs[0] == "self":
        base = here
    elif segs[0] == "super":
        base = here[:-1]
    elif segs[0] in children:
        base, segs = here, ["self", *segs]
    else:
        return None
    rest = segs[1:]
    while rest and rest[0] == "super":
        base, rest = base[:-1], rest[1:]
    return base + tuple(rest)


def graph(src: Path) -> dict[str, set[str]]:
    """The crate's file graph: each source file (relative to `src`) to the files it names."""
    files = {
        module_of(src, f): f
        for f in sorted(src.rglob("*.rs"))
        if f.name != "tests.rs" and "tests" not in f.relative_to(src).parts[:-1]
    }
    out: dict[str, set[str]] = {}
    for here, f in files.items():
        name = f.relative_to(src).as_posix()
        out.setdefault(name, set())
        code = code_of(f.read_text(encoding="utf-8"))
        paths = [p for m in USE_RE.finditer(code) for p in expand(m.group(1))]
        paths += [m.group(0) for m in PATH_RE.finditer(USE_RE.sub(" ", code))]
        children = {m[-1] for m in files if m[:-1] == here and len(m) == len(here) + 1}
        for path in paths:
            target = resolve(here, path, children)
            if target is None:
                continue
            # The deepest file module the path reaches.
            while target and target not in files:
                target = target[:-1]
            if target == here[: len(target)]:
                continue  # itself or one of its ancestors
            out[name].add(files[target].relative_to(src).as_posix())
    return out
