//! Mean, sample standard deviation and median of repeated measurements (the median and
//! spread as [`measure::timing::Stats`]).

use measure::timing::Stats;
use serde::Serialize;

/// Summary of `n` repetitions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// The repetitions.
    pub n: usize,
    /// Their mean.
    pub mean: f64,
    /// Sample standard deviation (n - 1); 0 for one repetition.
    pub sd: f64,
    /// Their median.
    pub median: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

/// The summary of `xs` (all zeros for none).
pub fn summary(xs: &[f64]) -> Summary {
    let n = xs.len();
    if n == 0 {
        return Summary::default();
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    let sd = if n > 1 {
        (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    } else {
        0.0
    };
    let Stats { median, min, max } = Stats::of(xs);
    Summary {
        n,
        mean,
        sd,
        median,
        min,
        max,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn summaries() {
        let s = super::summary(&[1.0, 2.0, 3.0, 10.0]);
        assert_eq!(
            (s.n, s.mean, s.median, s.min, s.max),
            (4, 4.0, 2.5, 1.0, 10.0)
        );
        assert!((s.sd - 4.0826).abs() < 1e-3);
        assert_eq!(super::summary(&[5.0]).sd, 0.0);
        assert_eq!(super::summary(&[]).n, 0);
    }
}
