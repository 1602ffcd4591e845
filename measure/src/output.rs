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
    into_place(path, |w| w.write_all(bytes), |e| e)
}

/// [`write_atomic`] for outputs too large to hold in memory (a powers-of-tau file): `fill`
/// streams the contents into a buffered temporary file beside `path`, which is synced and
/// renamed to `path` only when `fill` succeeds, and removed otherwise. What `fill` returns
/// (the bytes it wrote, say) is passed on; a failure of the file itself is
/// [`Error::Unwritable`], naming `path`.
pub fn write_atomic_with<T, E: From<Error>>(
    path: &Path,
    fill: impl FnOnce(&mut io::BufWriter<fs::File>) -> Result<T, E>,
) -> Result<T, E> {
    into_place(path, fill, |source| {
        E::from(Error::Unwritable {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// The one temp-file-then-rename: the directory made, the temporary sibling filled, flushed,
/// synced and renamed; on any failure the temporary file is removed, so that a crash or an
/// error never leaves a half-written output under its real name. `io_error` turns the file's
/// own failures into the caller's error type.
fn into_place<T, E>(
    path: &Path,
    fill: impl FnOnce(&mut io::BufWriter<fs::File>) -> Result<T, E>,
    io_error: impl Fn(io::Error) -> E,
) -> Result<T, E> {
    if let Some(d) = path.parent() {
        if !d.as_os_str().is_empty() {
            fs::create_dir_all(d).map_err(&io_error)?;
        }
    }
    let tmp = temp_sibling(path);
    let file = fs::File::create(&tmp).map_err(&io_error)?;
    let mut w = io::BufWriter::with_capacity(1 << 22, file);
    let result = fill(&mut w).and_then(|t| {
        let file = w.into_inner().map_err(|e| io_error(e.into_error()))?;
        file.sync_all().map_err(&io_error)?;
        fs::rename(&tmp, path).map_err(&io_error)?;
        Ok(t)
    });
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
    fn a_failed_stream_leaves_neither_the_file_nor_its_temp_file() {
        let d = scratch("stream");
        let f = d.join("out.bin");
        let written = write_atomic_with(&f, |w| -> Result<usize, Error> {
            w.write_all(b"abc").map_err(|source| Error::Unwritable {
                path: f.clone(),
                source,
            })?;
            Ok(3)
        })
        .unwrap();
        assert_eq!(written, 3);
        assert_eq!(fs::read(&f).unwrap(), b"abc");
        // A fill that fails midway: the earlier file stays, no temporary file is left.
        let failed = write_atomic_with(&f, |w| -> Result<(), Error> {
            w.write_all(b"partial").unwrap();
            Err(Error::IsADirectory(f.clone()))
        });
        assert!(failed.is_err());
        assert_eq!(fs::read(&f).unwrap(), b"abc");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
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
