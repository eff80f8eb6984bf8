//! What the table tests share: one Note and one context to apply in.
#![allow(clippy::unwrap_used)]

use quire_model::{ApplyCtx, Note, NoteId, Timestamp};

const NOW: Timestamp = Timestamp(1_761_800_000_000);

pub fn ctx() -> ApplyCtx<'static> {
    ApplyCtx {
        now: NOW,
        author: "claude",
    }
}

/// A new Note titled "Brief", always with the same ID.
pub fn note() -> Note {
    Note::new(
        "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50"
            .parse::<NoteId>()
            .unwrap(),
        "Brief".into(),
    )
}
