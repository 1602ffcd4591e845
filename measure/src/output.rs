//! Output files: checked before the work starts, written whole or not at all.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::Error;

/// The temporary sibling a file is written to before it is renamed into place.
fn temp_sibling(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    path.with_file_name(format!(".{name}.tmp{}", std::process::id()))
}

/// Fails, with a message naming the file, if `path` cannot be written: its directory is created
/// if missing and a temporary file is made there and removed. Call it before hours of work, not
/// after.
pub fn check_writable(path: &Path) -> Result<(), Error> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if path.is_dir() {
        return Err(Error::IsADirectory(path.to_path_buf()));
    }
    fs::create_dir_all(&dir).map_err(|source| Error::CreateDirectory {
        dir: dir.clone(),
        source,
    })?;
    let probe = temp_sibling(path);
    fs::File::create(&probe)
        .and_then(|mut f| f.write_all(b""))
        .map_err(|source| Error::Unwritable {
            path: path.to_path_buf(),
            source,
        })?;
    let _ = fs::remove_file(&probe);
    Ok(())
}

/// Writes `bytes` to a temporary file beside `path`, syncs it, and renames it to `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(d) = path.parent() {
        if !d.as_os_str().is_empty() {
            fs::create_dir_all(d)?;
        }
    }
    let tmp = temp_sibling(path);
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// [`write_atomic`] of a JSON value, pretty-printed, with a final newline.
pub fn write_json_atomic(path: &Path, value: &serde_json::Value) -> io::Result<()> {
    let mut text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("measure-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn atomic_write_creates_directories_and_leaves_no_temp_file() {
        let d = scratch("atomic");
        let f = d.join("a/b/report.json");
        write_json_atomic(&f, &serde_json::json!({"x": 1})).unwrap();
        assert_eq!(fs::read_to_string(&f).unwrap(), "{\n  \"x\": 1\n}\n");
        let left: Vec<_> = fs::read_dir(f.parent().unwrap()).unwrap().collect();
        assert_eq!(left.len(), 1);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn unwritable_paths_are_refused_by_name() {
        let d = scratch("unwritable");
        fs::create_dir_all(&d).unwrap();
        let err = check_writable(&d).unwrap_err().to_string();
        assert!(err.contains("is a directory"), "{err}");
        // A path under a regular file cannot be created.
        let file = d.join("plain");
        fs::write(&file, b"x").unwrap();
        let err = check_writable(&file.join("out.json"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("plain"), "{err}");
        assert!(check_writable(&d.join("ok/out.json")).is_ok());
        fs::remove_dir_all(&d).unwrap();
    }
}
