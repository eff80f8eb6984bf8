//! The eleven experiments of the reference articles, one module each, and Quire's own (12).

pub mod cost;
pub mod creates;
pub mod editor;
pub mod handles;
pub mod lines;
pub mod order;
pub mod outline;
pub mod paging;
pub mod race;
pub mod schema;
pub mod scope;
pub mod sources;
pub mod timestamps;
