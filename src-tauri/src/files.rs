//! Attachment contents, kept on this machine by SHA-256 (`<data dir>/files/<sha256>`). The Note
//! holds only the metadata (name, mime, size, sha256): contents never travel to the server, and
//! so never to an agent.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// What [`FileStore::put`] learned about a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub name: String,
    pub mime: String,
    pub size: u64,
    pub sha256: String,
}

#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("path: {path} is not a file")]
    NotAFile { path: PathBuf },
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the content of {name} (sha256 {sha256}) is not on this machine")]
    Missing { name: String, sha256: String },
}

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> FileError {
    let path = path.to_owned();
    move |source| FileError::Io { what, path, source }
}

/// The content-addressed store in the app's data directory.
#[derive(Debug, Clone)]
pub struct FileStore {
    dir: PathBuf,
}

impl FileStore {
    pub fn new(data_dir: &Path) -> Self {
        FileStore {
            dir: data_dir.join("files"),
        }
    }

    /// Copies the file at `src` in, hashing it on the way (one pass, any size).
    pub fn put(&self, src: &Path) -> Result<Stored, FileError> {
        let meta = fs::metadata(src).map_err(io("cannot read", src))?;
        if !meta.is_file() {
            return Err(FileError::NotAFile {
                path: src.to_owned(),
            });
        }
        let name = src
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "file".to_owned());
        fs::create_dir_all(&self.dir).map_err(io("cannot create", &self.dir))?;
        let mut input = fs::File::open(src).map_err(io("cannot open", src))?;
        let mut output =
            tempfile::NamedTempFile::new_in(&self.dir).map_err(io("cannot write in", &self.dir))?;
        let tmp = output.path().to_owned();
        let mut hasher = Sha256::new();
        let mut size = 0u64;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = input.read(&mut buf).map_err(io("cannot read", src))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            output
                .write_all(&buf[..n])
                .map_err(io("cannot write", &tmp))?;
            size += n as u64;
        }
        output
            .as_file()
            .sync_all()
            .map_err(io("cannot write", &tmp))?;
        let sha256 = hex::encode(hasher.finalize());
        let dest = self.dir.join(&sha256);
        output
            .persist(&dest)
            .map_err(|e| io("cannot store", &dest)(e.error))?;
        Ok(Stored {
            mime: mime_of(&name).to_owned(),
            name,
            size,
            sha256,
        })
    }

    /// Keeps `bytes` (a pasted or dropped image) under `name`.
    pub fn put_bytes(&self, name: &str, bytes: &[u8]) -> Result<Stored, FileError> {
        fs::create_dir_all(&self.dir).map_err(io("cannot create", &self.dir))?;
        let mut output =
            tempfile::NamedTempFile::new_in(&self.dir).map_err(io("cannot write in", &self.dir))?;
        let tmp = output.path().to_owned();
        output.write_all(bytes).map_err(io("cannot write", &tmp))?;
        output
            .as_file()
            .sync_all()
            .map_err(io("cannot write", &tmp))?;
        let sha256 = hex::encode(Sha256::digest(bytes));
        let dest = self.dir.join(&sha256);
        output
            .persist(&dest)
            .map_err(|e| io("cannot store", &dest)(e.error))?;
        Ok(Stored {
            mime: mime_of(name).to_owned(),
            name: name.to_owned(),
            size: bytes.len() as u64,
            sha256,
        })
    }

    /// The content with this hash.
    pub fn read(&self, name: &str, sha256: &str) -> Result<Vec<u8>, FileError> {
        let path = self.path(name, sha256)?;
        fs::read(&path).map_err(io("cannot read", &path))
    }

    /// Where the content with this hash is, if this machine has it.
    pub fn path(&self, name: &str, sha256: &str) -> Result<PathBuf, FileError> {
        let valid = sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_hexdigit());
        let path = self.dir.join(sha256);
        if valid && path.is_file() {
            Ok(path)
        } else {
            Err(FileError::Missing {
                name: name.to_owned(),
                sha256: sha256.to_owned(),
            })
        }
    }

    /// Copies the content to `dest`.
    pub fn copy_to(&self, name: &str, sha256: &str, dest: &Path) -> Result<(), FileError> {
        let src = self.path(name, sha256)?;
        fs::copy(&src, dest).map_err(io("cannot write", dest))?;
        Ok(())
    }

    /// A copy under its own name (`<data dir>/open/<sha256>/<name>`), for the system's default
    /// application, which goes by the file name's extension.
    pub fn named_copy(&self, name: &str, sha256: &str) -> Result<PathBuf, FileError> {
        let src = self.path(name, sha256)?;
        let dir = self.dir.with_file_name("open").join(sha256);
        fs::create_dir_all(&dir).map_err(io("cannot create", &dir))?;
        // Only the last component of a stored name: never a path outside `dir`.
        let file_name = Path::new(name)
            .file_name()
            .map(|n| n.to_owned())
            .unwrap_or_else(|| "file".into());
        let dest = dir.join(file_name);
        fs::copy(&src, &dest).map_err(io("cannot write", &dest))?;
        Ok(dest)
    }
}

/// Most bytes an image pasted or dropped into the Markdown editor may have (and that the
/// preview shows): 10 MiB.
pub const IMAGE_BYTES: usize = 10 * 1024 * 1024;

/// The file extension of an image the preview can show, by its content (PNG, JPEG, GIF,
/// WebP); `None` for anything else (SVG included: it may hold script).
pub fn image_extension(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("jpg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("webp")
    } else {
        None
    }
}

/// Why an image is refused for pasting or showing, if it is: too large, or not an image.
pub fn image_refusal(bytes: &[u8]) -> Option<String> {
    if bytes.len() > IMAGE_BYTES {
        return Some(format!(
            "image: {:.1} MB is over the limit of {} MB for an image in a Note",
            bytes.len() as f64 / 1_048_576.0,
            IMAGE_BYTES / 1_048_576
        ));
    }
    if image_extension(bytes).is_none() {
        return Some("image: not a PNG, JPEG, GIF or WebP image".to_owned());
    }
    None
}

/// A name for a pasted image: `name` if it ends in the image's own extension, else `name` (or
/// "pasted image") with it.
pub fn image_name(name: &str, ext: &str) -> String {
    let base = Path::new(name.trim())
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "pasted image".to_owned());
    let has = Path::new(&base).extension().is_some_and(|e| {
        e.eq_ignore_ascii_case(ext) || (ext == "jpg" && e.eq_ignore_ascii_case("jpeg"))
    });
    if has { base } else { format!("{base}.{ext}") }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod image_tests {
    use super::*;

    #[test]
    fn images_are_known_by_their_bytes_and_bounded() {
        let png = b"\x89PNG\r\n\x1a\n rest";
        assert_eq!(image_extension(png), Some("png"));
        assert_eq!(image_extension(&[0xff, 0xd8, 0xff, 0xe0]), Some("jpg"));
        assert_eq!(image_extension(b"GIF89a..."), Some("gif"));
        assert_eq!(image_extension(b"RIFF\0\0\0\0WEBPVP8 "), Some("webp"));
        assert_eq!(image_extension(b"<svg onload=x>"), None);
        assert_eq!(image_refusal(png), None);
        assert_eq!(
            image_refusal(b"hello").as_deref(),
            Some("image: not a PNG, JPEG, GIF or WebP image")
        );
        let mut big = png.to_vec();
        big.resize(IMAGE_BYTES + 1, 0);
        assert_eq!(
            image_refusal(&big).as_deref(),
            Some("image: 10.0 MB is over the limit of 10 MB for an image in a Note")
        );
        assert_eq!(image_name("shot.PNG", "png"), "shot.PNG");
        assert_eq!(image_name("photo.jpeg", "jpg"), "photo.jpeg");
        assert_eq!(image_name("", "png"), "pasted image.png");
        assert_eq!(image_name("../../x", "gif"), "x.gif");
    }
}

/// The media type of a file, by its extension (`application/octet-stream` when unknown).
pub fn mime_of(name: &str) -> &'static str {
    let ext = Path::new(name)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "txt" | "text" | "log" => "text/plain",
        "md" | "markdown" => "text/markdown",
        "csv" => "text/csv",
        "tsv" => "text/tab-separated-values",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "json" => "application/json",
        "xml" => "application/xml",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "doc" => "application/msword",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls" => "application/vnd.ms-excel",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt" => "application/vnd.ms-powerpoint",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt" => "application/vnd.oasis.opendocument.text",
        "ods" => "application/vnd.oasis.opendocument.spreadsheet",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_hashes_and_keeps_the_content_by_sha256() {
        let dir = tempfile::tempdir().expect("temp dir");
        let src = dir.path().join("report.PDF");
        fs::write(&src, b"abc").expect("write");
        let store = FileStore::new(&dir.path().join("data"));
        let stored = store.put(&src).expect("put");
        assert_eq!(
            stored,
            Stored {
                name: "report.PDF".to_owned(),
                mime: "application/pdf".to_owned(),
                size: 3,
                sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
                    .to_owned(),
            }
        );
        let copy = dir.path().join("copy.pdf");
        store
            .copy_to(&stored.name, &stored.sha256, &copy)
            .expect("copy");
        assert_eq!(fs::read(&copy).expect("read"), b"abc");
        let named = store
            .named_copy("../../escape.pdf", &stored.sha256)
            .expect("named copy");
        assert!(named.starts_with(dir.path().join("data").join("open")));
        assert_eq!(named.file_name().expect("name"), "escape.pdf");
    }

    #[test]
    fn unknown_content_and_directories_are_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = FileStore::new(dir.path());
        assert!(matches!(
            store.path("a.txt", "00"),
            Err(FileError::Missing { .. })
        ));
        assert!(matches!(
            store.put(dir.path()),
            Err(FileError::NotAFile { .. })
        ));
        assert_eq!(mime_of("no-extension"), "application/octet-stream");
    }
}
