use serde::{Deserialize, Serialize};

/// A point in time, milliseconds since the Unix epoch. Always passed in, never read inside the
/// model, so that every function here is deterministic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(type = "number"))]
#[serde(transparent)]
pub struct Timestamp(pub i64);

impl Timestamp {
    pub fn millis(self) -> i64 {
        self.0
    }

    /// RFC 3339 in UTC with millisecond precision, e.g. `2026-11-30T06:24:41.123Z`.
    pub fn to_rfc3339(self) -> String {
        let ms = self.0.rem_euclid(1000) as u32;
        let secs = self.0.div_euclid(1000);
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400) as u32;
        let (y, m, d) = civil_from_days(days);
        let (hh, mm, ss) = (rem / 3600, (rem % 3600) / 60, rem % 60);
        match u32::try_from(y) {
            // Every write stamps its version with this: digits written in place, no formatter.
            Ok(y) if y <= 9999 => {
                let mut out = *b"0000-00-00T00:00:00.000Z";
                for (at, value, width) in [
                    (0, y, 4),
                    (5, m, 2),
                    (8, d, 2),
                    (11, hh, 2),
                    (14, mm, 2),
                    (17, ss, 2),
                    (20, ms, 3),
                ] {
                    let mut v = value;
                    for slot in out[at..at + width].iter_mut().rev() {
                        *slot = b'0' + (v % 10) as u8;
                        v /= 10;
                    }
                }
                out.iter().map(|&b| char::from(b)).collect()
            }
            _ => format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}.{ms:03}Z"),
        }
    }
}

/// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to (year, month, day).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_rfc3339() {
        assert_eq!(Timestamp(0).to_rfc3339(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            Timestamp(1_796_019_881_123).to_rfc3339(),
            "2026-11-30T06:24:41.123Z"
        );
        assert_eq!(
            Timestamp(951_782_400_000).to_rfc3339(),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(Timestamp(-1).to_rfc3339(), "1969-12-31T23:59:59.999Z");
        assert_eq!(
            Timestamp(253_402_300_799_999).to_rfc3339(),
            "9999-12-31T23:59:59.999Z"
        );
        // Outside four digits: the formatter's spelling.
        assert_eq!(
            Timestamp(253_402_300_800_000).to_rfc3339(),
            "10000-01-01T00:00:00.000Z"
        );
        assert_eq!(
            Timestamp(-62_167_219_200_001).to_rfc3339(),
            "-001-12-31T23:59:59.999Z"
        );
    }
}
