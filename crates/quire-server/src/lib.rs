//! Quire's server: REST for the app, MCP for agents, over one guarded write.
#![forbid(unsafe_code)]

pub mod notes;
