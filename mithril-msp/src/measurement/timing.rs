//! Repeated timing in CPU time (the whole process, all threads) and wall time.
//!
//! A repetition runs the operation as many times as it takes to last `rep_seconds`, so that the
//! clocks' resolution and the call overhead vanish in the mean per call; the figure is the
//! median over repetitions, with min and max for the spread. An operation and its lower bound
//! run in alternation, repetition by repetition, so that both meet the same machine load.

use std::time::Instant;

use measure::clock::process_cpu_seconds;
use serde::Serialize;

/// Median, minimum and maximum of a sample.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Stats {
    /// Median (the mean of the middle two for an even count).
    pub median: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
}

impl Stats {
    /// The statistics of a non-empty sample.
    pub fn of(xs: &[f64]) -> Stats {
        assert!(!xs.is_empty(), "an empty sample");
        let mut s = xs.to_vec();
        s.sort_by(f64::total_cmp);
        let m = s.len();
        let median = if m % 2 == 1 {
            s[m / 2]
        } else {
            0.5 * (s[m / 2 - 1] + s[m / 2])
        };
        Stats {
            median,
            min: s[0],
            max: s[m - 1],
        }
    }
}

/// CPU and wall seconds per call, over the repetitions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Timing {
    /// CPU seconds per call.
    pub cpu_s: Stats,
    /// Wall seconds per call.
    pub wall_s: Stats,
    /// Repetitions.
    pub repetitions: usize,
    /// Calls per repetition.
    pub iterations: usize,
}

/// How long and how often to time.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Repetitions (at least 1).
    pub repetitions: usize,
    /// Minimum length of a repetition, in seconds.
    pub rep_seconds: f64,
}

/// (CPU, wall) seconds per call of `iters` calls.
fn per_call(f: &mut dyn FnMut(), iters: usize) -> (f64, f64) {
    let c = process_cpu_seconds();
    let w = Instant::now();
    for _ in 0..iters {
        f();
    }
    let wall = w.elapsed().as_secs_f64();
    (
        (process_cpu_seconds() - c) / iters as f64,
        wall / iters as f64,
    )
}

/// Calls per repetition for a repetition of about `rep_seconds` (after one warm-up call).
fn iterations_for(f: &mut dyn FnMut(), rep_seconds: f64) -> usize {
    f();
    let (_, one) = per_call(f, 1);
    if one >= rep_seconds || one <= 0.0 {
        return 1;
    }
    ((rep_seconds / one).ceil() as usize).clamp(1, 1_000_000)
}

fn timing(samples: &[(f64, f64)], iterations: usize) -> Timing {
    let cpu: Vec<f64> = samples.iter().map(|s| s.0).collect();
    let wall: Vec<f64> = samples.iter().map(|s| s.1).collect();
    Timing {
        cpu_s: Stats::of(&cpu),
        wall_s: Stats::of(&wall),
        repetitions: samples.len(),
        iterations,
    }
}

/// Times `op`, and `bound` in alternation with it when given.
pub fn time_with_bound(
    plan: &Plan,
    op: &mut dyn FnMut(),
    mut bound: Option<&mut dyn FnMut()>,
) -> (Timing, Option<Timing>) {
    let reps = plan.repetitions.max(1);
    let it_op = iterations_for(op, plan.rep_seconds);
    let it_bound = bound.as_mut().map(|b| iterations_for(*b, plan.rep_seconds));
    let mut s_op = Vec::with_capacity(reps);
    let mut s_bound = Vec::with_capacity(reps);
    for _ in 0..reps {
        s_op.push(per_call(op, it_op));
        if let (Some(b), Some(it)) = (bound.as_mut(), it_bound) {
            s_bound.push(per_call(*b, it));
        }
    }
    let t_bound = it_bound.map(|it| timing(&s_bound, it));
    (timing(&s_op, it_op), t_bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_spreads() {
        let s = Stats::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        assert_eq!(Stats::of(&[1.0, 2.0, 4.0, 3.0]).median, 2.5);
    }

    #[test]
    fn heavier_work_takes_longer() {
        let plan = Plan {
            repetitions: 3,
            rep_seconds: 0.005,
        };
        let mut x = 0u64;
        let mut light = || x = (0..1_000u64).fold(x, |a, b| a.wrapping_mul(31) ^ b);
        let mut y = 0u64;
        let mut heavy = || y = (0..100_000u64).fold(y, |a, b| a.wrapping_mul(31) ^ b);
        let (l, h) = time_with_bound(&plan, &mut light, Some(&mut heavy));
        let h = h.unwrap();
        assert!(h.cpu_s.median > l.cpu_s.median, "{l:?} {h:?}");
        assert_eq!(l.repetitions, 3);
    }
}
