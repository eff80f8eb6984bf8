//! Where "now" comes from: the time every write and every new Note is stamped with. Passed in
//! (to the server's `Notes`, to the sync engine) so that tests and the lab drive time;
//! [`SystemClock`] is the wall clock. Here, beside the wire types both sides share, rather than
//! in `quire-model`, which reads no clock.

use quire_model::Timestamp;

/// A source of the current time.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> Timestamp;
}

/// Wall-clock time.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        Timestamp(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_clock_reads_the_wall_clock() {
        let before = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_millis() as i64;
        let now = SystemClock.now().millis();
        let after = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_millis() as i64;
        assert!(
            before <= now && now <= after,
            "{before} <= {now} <= {after}"
        );
    }
}
