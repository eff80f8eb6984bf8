//! Quire's domain, pure: identifiers, versions, tabs, the operation vocabulary shared by the
//! person and the agent, and `apply`, which turns a Note and a list of operations into a new
//! Note or a refusal that names the field. No I/O, no clocks: time and authors are passed in.
#![forbid(unsafe_code)]

mod apply;
mod error;
mod ids;
mod note;
mod numbers;
mod op;
mod tab;
mod time;
#[cfg(feature = "ts")]
pub mod ts;
mod url_norm;

pub use apply::{Applied, ApplyCtx, apply, restore};
pub use error::{OpError, OpErrorCode};
pub use ids::{NoteId, NoteIdError, TabId, TabKind, Version, base36, generated_id};
pub use note::{Note, NoteSummary};
pub use numbers::{WideInteger, find_wide_integer};
pub use op::{NewTabKind, Op, OpOutcome, SlideInput};
pub use tab::{Cell, Deck, FileMeta, Layout, Sheet, SheetTab, Slide, Source, Tab, TabData, Theme};
pub use time::Timestamp;
pub use url_norm::{UrlError, normalize_url, web_url};

/// Limits that keep a single Note within what the editors can show without a stall.
pub mod limits {
    /// Longest Note title, in characters.
    pub const TITLE_CHARS: usize = 500;
    /// Longest tab label, in characters.
    pub const LABEL_CHARS: usize = 200;
    /// Most slides one outline (or one `create_tab`) may carry.
    pub const OUTLINE_SLIDES: usize = 20;
    /// Most rows a sheet may grow to.
    pub const SHEET_ROWS: usize = 100_000;
    /// Most columns a sheet may grow to.
    pub const SHEET_COLS: usize = 1_000;
    /// Most cells one sheet may hold.
    pub const SHEET_CELLS: usize = 2_000_000;
}
