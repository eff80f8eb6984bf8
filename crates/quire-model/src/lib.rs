//! Quire's domain, pure: identifiers, versions, tabs, the operation vocabulary shared by the
//! person and the agent, and `apply`, which turns a Note and a list of operations into a new
//! Note or a refusal that names the field. No I/O, no clocks: time and authors are passed in.
#![forbid(unsafe_code)]

mod apply;
mod author;
mod bounds;
pub mod bytes;
pub mod digest;
mod error;
mod ids;
pub mod merge;
mod note;
mod numbers;
mod op;
mod revert;
mod tab;
mod text;
mod time;
#[cfg(feature = "ts")]
pub mod ts;
mod url_norm;

pub use apply::{Applied, ApplyCtx, apply, restore};
pub use author::AuthorKind;
pub use error::{OpError, OpErrorCode};
pub use ids::{NoteId, NoteIdError, TabId, TabKind, Version, base36, generated_id};
pub use note::{Note, NoteSummary};
pub use numbers::{WideInteger, find_wide_integer};
pub use op::{NewTabKind, Op, OpOutcome, SlideInput, TextEdit, TextSplice};
pub use revert::{RevertConflict, revert};
pub use tab::{
    Cell, Deck, FileMeta, Layout, Row, Sheet, SheetTab, Slide, Source, Tab, TabData, Theme,
    same_cell,
};
pub use text::Text;
pub use time::Timestamp;
pub use url_norm::{UrlError, normalize_url, web_url};

/// What one write and one Note may hold. Each bound counts what would be stored, not what was
/// sent (the empty cells a range pads in count as cells), and a write that would pass one is
/// refused whole with `limit_exceeded` naming the field: nothing is written. A write never
/// makes a Note exceed a bound, nor grow further past one it already exceeds (a Note stored
/// before a bound existed stays editable).
///
/// Why these numbers: the writer applies one write at a time, so one write must stay cheap
/// (BENCHMARKS.md, "Bounds": the worst write these allow holds the writer for well under
/// 100 ms), and a Note must stay small enough for the app to show without a stall.
pub mod limits {
    /// Most operations in one write (the request's `changes`).
    pub const OPS: usize = 1_000;
    /// Splices in one `splice_text` operation.
    pub const TEXT_SPLICES: usize = 1_000;
    /// Edits in one `edit_text` operation.
    pub const TEXT_EDITS: usize = 20;
    /// Most tabs in a Note, the three fixed ones included.
    pub const TABS: usize = 200;
    /// Longest Note title, in characters.
    pub const TITLE_CHARS: usize = 500;
    /// Longest tab label, in characters.
    pub const LABEL_CHARS: usize = 200;
    /// Most slides one outline (or one `create_tab`) may carry.
    pub const OUTLINE_SLIDES: usize = 20;
    /// Most slides in a deck.
    pub const DECK_SLIDES: usize = 1_000;
    /// Most sheets in a Sheet tab.
    pub const SHEETS: usize = 100;
    /// Most rows a sheet may grow to.
    pub const SHEET_ROWS: usize = 100_000;
    /// Most columns a sheet may grow to.
    pub const SHEET_COLS: usize = 1_000;
    /// Most cells a sheet stores, the empty cells a range pads in included. Counted over all
    /// the sheets of a Note together, so that a Note holds at most one full sheet's worth.
    pub const SHEET_CELLS: usize = 2_000_000;
    /// Most rows all the sheets of a Note hold together (an empty row is stored too).
    pub const NOTE_ROWS: usize = 1_000_000;
    /// Most bytes of text a Note holds (UTF-8): its Markdown, cell strings, sheet names, slide
    /// titles, bodies and notes, tab labels, and the fields of its sources and files.
    pub const NOTE_TEXT_BYTES: usize = 64 * 1024 * 1024;
    /// Most sources (cited pages) in a Note.
    pub const SOURCES: usize = 5_000;
    /// Most files (attachments) in a Note.
    pub const FILES: usize = 5_000;
    /// Longest source URL, in bytes, as stored (normalised or as given, whichever is longer).
    /// 8 KiB is what common web servers accept in a request line (nginx, Apache): a longer
    /// address cannot be opened anyway.
    pub const URL_BYTES: usize = 8 * 1024;
    /// Longest source title, in characters (as a Note title).
    pub const SOURCE_TITLE_CHARS: usize = TITLE_CHARS;
    /// Longest file name, in characters (what common file systems allow).
    pub const FILE_NAME_CHARS: usize = 255;
    /// Longest media type, in bytes (RFC 6838: 127 for the type, 127 for the subtype, and the
    /// slash).
    pub const MIME_BYTES: usize = 255;
}
