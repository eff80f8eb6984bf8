//! For the benchmarks (the crates' `examples/`, quire-lab, the app's timing scenarios): latency
//! samples summarised one way everywhere (median and p99 by nearest rank, mean), and the text
//! they write. Every percentile in the tree is [`percentile`]'s.

use std::time::Duration;

/// Latencies of one measurement, in the order taken.
#[derive(Debug, Clone, Default)]
pub struct Samples(Vec<Duration>);

/// A summary of [`Samples`]. All zero when there were none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub count: usize,
    pub median: Duration,
    pub p99: Duration,
    pub mean: Duration,
}

impl Samples {
    pub fn with_capacity(n: usize) -> Self {
        Samples(Vec::with_capacity(n))
    }

    pub fn push(&mut self, sample: Duration) {
        self.0.push(sample);
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn stats(mut self) -> Stats {
        self.0.sort_unstable();
        let count = self.0.len();
        let total: Duration = self.0.iter().sum();
        Stats {
            count,
            median: percentile(&self.0, 0.5),
            p99: percentile(&self.0, 0.99),
            mean: u32::try_from(count)
                .ok()
                .filter(|&n| n > 0)
                .map_or(Duration::ZERO, |n| total / n),
        }
    }
}

impl From<Vec<Duration>> for Samples {
    fn from(samples: Vec<Duration>) -> Self {
        Samples(samples)
    }
}

impl Extend<Duration> for Samples {
    fn extend<I: IntoIterator<Item = Duration>>(&mut self, iter: I) {
        self.0.extend(iter);
    }
}

/// The `q`-quantile (0 to 1) of `sorted` (ascending) by the nearest-rank method: the sample of
/// rank `ceil(q * n)` (at least 1), the smallest with a share `q` of the samples at or below it.
/// Zero (`T::default()`) for no samples.
pub fn percentile<T: Copy + Default>(sorted: &[T], q: f64) -> T {
    let n = sorted.len();
    if n == 0 {
        return T::default();
    }
    let rank = ((q.clamp(0.0, 1.0) * n as f64).ceil() as usize).clamp(1, n);
    sorted[rank - 1]
}

/// Microseconds, for tables.
/// A benchmark's `--name N` argument, or `default` when it is not given. Panics (the benchmark
/// stops, saying so) on a value that is not a number.
pub fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} takes a number, not {v:?}"))
        })
}

pub fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// 200 characters, different for every `i`, so that no write of it is a no-op.
pub fn text_200(i: usize) -> String {
    let mut s = format!("write {i:>10} ");
    while s.len() < 200 {
        s.push_str("lorem ipsum dolor sit amet ");
    }
    s.truncate(200);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn stats_take_the_nearest_rank_whatever_the_order() {
        let mut samples: Vec<Duration> = (1..=101).rev().map(ms).collect();
        samples.swap(3, 70);
        let stats = Samples::from(samples).stats();
        assert_eq!(
            stats,
            Stats {
                count: 101,
                median: ms(51),
                p99: ms(100),
                mean: ms(51),
            }
        );
    }

    #[test]
    fn small_and_empty_sets() {
        let one = Samples::from(vec![ms(7)]).stats();
        assert_eq!((one.median, one.p99, one.mean), (ms(7), ms(7), ms(7)));
        let two = Samples::from(vec![ms(10), ms(20)]).stats();
        assert_eq!(
            (two.median, two.p99),
            (ms(10), ms(20)),
            "rank ceil(0.5 * 2) = 1"
        );
        let hundred: Vec<Duration> = (1..=100).map(ms).collect();
        assert_eq!(percentile(&hundred, 0.5), ms(50));
        assert_eq!(percentile(&hundred, 0.99), ms(99));
        assert_eq!(
            percentile(&[1.5, 2.5, 3.5], 0.5),
            2.5,
            "any ordered samples"
        );
        assert_eq!(Samples::default().stats().p99, Duration::ZERO);
        assert_eq!(percentile(&[ms(1), ms(2), ms(3)], 0.0), ms(1));
        assert_eq!(percentile(&[ms(1), ms(2), ms(3)], 1.0), ms(3));
    }

    #[test]
    fn texts_are_200_characters_and_distinct() {
        assert_eq!(text_200(0).len(), 200);
        assert_eq!(text_200(123_456).len(), 200);
        assert_ne!(text_200(1), text_200(2));
    }
}
