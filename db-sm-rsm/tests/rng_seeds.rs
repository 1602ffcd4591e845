//! Every random-number generator that is not the operating system's is seeded with 32 bytes.
//!
//! A ChaCha20 stream seeded from a `u64` has only 2^64 possible states: whoever sees its output
//! (a blinded ciphertext, a proof's commitment) can search them all and recover every secret the
//! stream drew. So outside tests no code may call `seed_from_u64`; `--seed` is 32 bytes, and
//! each party's stream is keyed by hashing it with the party's name (`measure::seed::stream`).

use std::path::{Path, PathBuf};

/// The Rust files of the crate's product code: the library, the binary, benchmarks, examples.
fn product_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = ["src", "benches", "examples"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries {
            let path = e.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The files of modules declared test-only (`#[cfg(test)] mod name;` in `path`): the whole file
/// is a test item. A child of `a/mod.rs` or `lib.rs` lives beside it, a child of `a/b.rs` in `a/b/`.
fn test_module_files(path: &Path, text: &str) -> Vec<PathBuf> {
    let dir = match path.file_stem().and_then(|s| s.to_str()) {
        Some("mod" | "lib" | "main") => path.parent().map(Path::to_path_buf),
        _ => Some(path.with_extension("")),
    };
    let Some(dir) = dir else { return Vec::new() };
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        rest = &rest[at + "#[cfg(test)]".len()..];
        let item = rest.trim_start();
        let Some(decl) = item
            .strip_prefix("mod ")
            .or_else(|| item.strip_prefix("pub mod "))
        else {
            continue;
        };
        let name: String = decl
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if decl[name.len()..].trim_start().starts_with(';') {
            out.push(dir.join(format!("{name}.rs")));
            out.push(dir.join(&name).join("mod.rs"));
        }
    }
    out
}

/// `text` without the items marked `#[cfg(test)]` (a test module, a test helper): from the
/// attribute to the end of the item, a `;` or the brace that closes its body.
fn without_test_items(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_scanner_drops_test_items_only() {
    let text =
        "fn a() { x(); }\n#[cfg(test)]\nmod tests { fn b() { seed_from_u64(1); } }\nfn c() {}\n\
                #[cfg(test)]\nuse foo::seed_from_u64;\nfn d() { seed_from_u64(2) }\n";
    let kept = without_test_items(text);
    assert!(kept.contains("fn a()") && kept.contains("fn c()") && kept.contains("fn d()"));
    assert_eq!(kept.matches("seed_from_u64").count(), 1, "{kept}");
}

#[test]
fn a_test_only_module_file_is_skipped_whole() {
    let text = "pub mod a;\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod inline { }\n";
    let found = test_module_files(Path::new("src/x/mod.rs"), text);
    assert_eq!(
        found,
        vec![
            PathBuf::from("src/x/tests.rs"),
            PathBuf::from("src/x/tests/mod.rs")
        ]
    );
    let found = test_module_files(Path::new("src/x/y.rs"), "#[cfg(test)]\nmod t;\n");
    assert_eq!(found[0], PathBuf::from("src/x/y/t.rs"));
}

#[test]
fn no_rng_is_seeded_from_64_bits_outside_tests() {
    let files = product_files();
    assert!(files.len() > 10, "found only {files:?}");
    let texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a readable source file");
            (path, text)
        })
        .collect();
    let test_only: Vec<PathBuf> = texts
        .iter()
        .flat_map(|(path, text)| test_module_files(path, text))
        .collect();
    let mut found = Vec::new();
    for (path, text) in &texts {
        if test_only.contains(path) {
            continue;
        }
        for line in without_test_items(text).lines() {
            if line.contains("seed_from_u64") && !line.trim_start().starts_with("//") {
                let root = Path::new(env!("CARGO_MANIFEST_DIR"));
                let shown = path.strip_prefix(root).unwrap_or(path);
                found.push(format!("{}: {}", shown.display(), line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "RNGs seeded from 64 bits (seed with 32 bytes instead):\n{}",
        found.join("\n")
    );
}
