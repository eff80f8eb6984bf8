//! The Files tab: attaching a file's metadata and removing a file.

use super::{ApplyCtx, Draft, OpResult, check_bytes, check_chars, clip, not_found, wrong_kind};
use crate::error::OpError;
use crate::ids::generated_id;
use crate::op::OpOutcome;
use crate::tab::{FileMeta, TabData};
use crate::{TabId, limits};

pub(super) fn add_file(
    d: &mut Draft,
    name: &str,
    mime: &str,
    size: u64,
    sha256: &str,
    ctx: &ApplyCtx<'_>,
) -> OpResult {
    let name = name.trim();
    if name.is_empty() {
        return Err(OpError::invalid("name", "must not be empty"));
    }
    check_chars("name", name, limits::FILE_NAME_CHARS)?;
    check_bytes("mime", mime, limits::MIME_BYTES)?;
    if !mime.contains('/') {
        return Err(OpError::invalid(
            "mime",
            format!("{mime:?} is not a media type such as text/plain"),
        ));
    }
    if sha256.len() != 64
        || !sha256
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return Err(OpError::invalid(
            "sha256",
            "must be 64 lower-case hex digits",
        ));
    }
    let seq = d.note.seq + 1;
    let tab = d.fixed_tab_mut(TabId::FILES)?;
    let TabData::Files(files) = &mut tab.data else {
        return Err(wrong_kind(tab, "add_file", "the files"));
    };
    if files.len() >= limits::FILES {
        return Err(OpError::over_limit(
            "name",
            format!(
                "the Note has {} files; at most {}",
                files.len(),
                limits::FILES
            ),
        ));
    }
    let id = generated_id("file", seq, ctx.now);
    files.push(FileMeta {
        id: id.clone(),
        name: name.to_owned(),
        mime: mime.to_owned(),
        size,
        sha256: sha256.to_owned(),
        added_by: ctx.author.to_owned(),
        added_at: ctx.now.to_rfc3339(),
    });
    d.note.seq = seq;
    d.touched.push(TabId::new(TabId::FILES));
    Ok((
        OpOutcome::FileAdded { file_id: id },
        format!("attached {}", clip(name, 60)),
    ))
}

pub(super) fn remove_file(d: &mut Draft, file_id: &str) -> OpResult {
    let tab = d.fixed_tab_mut(TabId::FILES)?;
    let TabData::Files(files) = &mut tab.data else {
        return Err(wrong_kind(tab, "remove_file", "the files"));
    };
    let at = files
        .iter()
        .position(|f| f.id == file_id)
        .ok_or_else(|| not_found("file_id", "file", file_id))?;
    let removed = files.remove(at);
    d.touched.push(TabId::new(TabId::FILES));
    Ok((
        OpOutcome::Removed {
            tab_id: TabId::new(TabId::FILES),
            id: file_id.to_owned(),
        },
        format!("removed file {}", clip(&removed.name, 60)),
    ))
}
