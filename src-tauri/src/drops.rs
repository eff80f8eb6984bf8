//! Files the person dropped on the window, held on this side: the window is told a drop's
//! number and its files' names ([`FilesDropped`]) and attaches it by number
//! (`attach_dropped`), so it never hands a path to a command.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::Serialize;

/// Drops not attached yet, newest last; older ones are forgotten past this many.
const KEPT: usize = 16;

/// The payload of the [`FILES_DROPPED`](crate::FILES_DROPPED) event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FilesDropped {
    pub drop_id: u64,
    /// The files' names (the last component of each path), for the UI to show.
    pub names: Vec<String>,
}

/// The drops waiting to be attached (managed state).
#[derive(Debug, Default)]
pub struct Drops {
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    next: u64,
    drops: VecDeque<(u64, Vec<PathBuf>)>,
}

impl Drops {
    /// Keeps `paths` as a new drop and describes it for the window.
    pub fn record(&self, paths: Vec<PathBuf>) -> FilesDropped {
        let names = paths
            .iter()
            .map(|p| {
                p.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| p.display().to_string())
            })
            .collect();
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.next += 1;
        let drop_id = held.next;
        held.drops.push_back((drop_id, paths));
        while held.drops.len() > KEPT {
            held.drops.pop_front();
        }
        FilesDropped { drop_id, names }
    }

    /// The paths of drop `drop_id`, once: a second call finds nothing.
    pub fn take(&self, drop_id: u64) -> Option<Vec<PathBuf>> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let at = held.drops.iter().position(|(id, _)| *id == drop_id)?;
        held.drops.remove(at).map(|(_, paths)| paths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drop_is_taken_once_by_its_number_and_old_ones_are_forgotten() {
        let drops = Drops::default();
        let first = drops.record(vec![
            PathBuf::from("/home/me/a.txt"),
            PathBuf::from("/tmp/b.pdf"),
        ]);
        assert_eq!(first.names, ["a.txt", "b.pdf"]);
        assert_eq!(drops.take(first.drop_id + 1), None);
        assert_eq!(
            drops.take(first.drop_id),
            Some(vec![
                PathBuf::from("/home/me/a.txt"),
                PathBuf::from("/tmp/b.pdf")
            ])
        );
        assert_eq!(drops.take(first.drop_id), None, "attached once");

        let ids: Vec<u64> = (0..KEPT + 2)
            .map(|i| drops.record(vec![PathBuf::from(format!("/f{i}"))]).drop_id)
            .collect();
        assert_eq!(drops.take(ids[0]), None);
        assert_eq!(drops.take(ids[1]), None);
        assert_eq!(drops.take(ids[2]), Some(vec![PathBuf::from("/f2")]));
    }
}
