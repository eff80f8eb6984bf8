//! The end-to-end scenarios, one module each, in one test binary (one link instead
//! of one per scenario). Each test starts its own Xvfb, tauri-driver and app, with fresh data
//! directories, and saves its screenshots under test-output/e2e/.
//!
//! `scripts/e2e.sh` and `.ci/app.sh` run them one at a time (`--test-threads=1`): two cores do
//! not run several WebKit windows at once without stalls that would read as failures.

mod support;

mod about_and_logs;
mod agent_conflict;
mod agent_live;
mod agent_notes_list;
mod agent_other_lines;
mod agent_snippet;
mod agent_token_revoke;
mod appearance;
mod decks_leave_the_app;
mod editor_undo;
mod export_import;
mod files_through_dialogs;
mod first_use_polish;
mod https_remote;
mod links_images;
mod markdown_saved;
mod notes_list_long;
mod offline_remote;
mod palette_and_spelling;
mod perf;
mod quit_keeps_edits;
mod restore_version;
mod search_opens_cell;
mod sheet_formulas;
mod single_instance;
mod tabs_by_id;
mod trash_restore;
mod undo_agent_change;
