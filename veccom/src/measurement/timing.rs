//! Repeated timing of one operation in CPU time (all threads of the process) and wall time.
//!
//! Fast operations run many times per repetition so that a repetition lasts at least
//! `rep_seconds` (the clocks' resolution and call overhead then vanish in the mean); the median
//! over repetitions is the figure, min and max show the spread. An operation and its lower
//! bound are timed in alternation, repetition by repetition, so that both see the same machine.

use std::time::Instant;

use measure::clock::process_cpu_seconds;
use serde::Serialize;

/// Median, minimum and maximum of a sample, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Stats {
    /// Median (mean of the middle two for an even count).
    pub median: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
}

impl Stats {
    /// The statistics of a non-empty sample.
    pub fn of(xs: &[f64]) -> Stats {
        assert!(!xs.is_empty(), "statistics of an empty sample");
        let mut s = xs.to_vec();
        s.sort_by(f64::total_cmp);
        let k = s.len();
        let median = if k % 2 == 1 {
            s[k / 2]
        } else {
            (s[k / 2 - 1] + s[k / 2]) / 2.0
        };
        Stats {
            median,
            min: s[0],
            max: s[k - 1],
        }
    }
}

/// Per-operation CPU and wall time over the repetitions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Timing {
    /// CPU seconds per operation.
    pub cpu_s: Stats,
    /// Wall seconds per operation.
    pub wall_s: Stats,
    /// Repetitions.
    pub repetitions: usize,
    /// Operations per repetition.
    pub iterations: usize,
}

/// How long and how often to time.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Repetitions (at least 1).
    pub repetitions: usize,
    /// Minimum duration of one repetition, in seconds.
    pub rep_seconds: f64,
}

/// Runs `f` `iters` times; returns (cpu, wall) seconds per run.
fn run_batch(f: &mut dyn FnMut(), iters: usize) -> (f64, f64) {
    let c0 = process_cpu_seconds();
    let w0 = Instant::now();
    for _ in 0..iters {
        f();
    }
    let wall = w0.elapsed().as_secs_f64();
    let cpu = process_cpu_seconds() - c0;
    (cpu / iters as f64, wall / iters as f64)
}

/// Iterations per repetition so that a repetition lasts about `rep_seconds` (one warm-up run
/// has been done by the caller; this times one more and, if fast, a few).
fn calibrate(f: &mut dyn FnMut(), rep_seconds: f64) -> usize {
    let mut iters = 1usize;
    loop {
        let (_, wall) = run_batch(f, iters);
        let total = wall * iters as f64;
        if total >= rep_seconds / 4.0 || iters >= 1 << 24 {
            let per = wall.max(1e-9);
            return ((rep_seconds / per).ceil() as usize).clamp(1, 1 << 26);
        }
        iters *= 8;
    }
}

/// Times `op` and, if given, its lower bound `lb` in alternation. Both must have been run once
/// (warm-up and check) by the caller.
pub fn time_pair(
    plan: &Plan,
    op: &mut dyn FnMut(),
    mut lb: Option<&mut dyn FnMut()>,
) -> (Timing, Option<Timing>) {
    let it_op = calibrate(op, plan.rep_seconds);
    let it_lb = lb.as_mut().map(|f| calibrate(*f, plan.rep_seconds));
    let reps = plan.repetitions.max(1);
    let (mut oc, mut ow, mut lc, mut lw) = (vec![], vec![], vec![], vec![]);
    for _ in 0..reps {
        let (c, w) = run_batch(op, it_op);
        oc.push(c);
        ow.push(w);
        if let (Some(f), Some(it)) = (lb.as_mut(), it_lb) {
            let (c, w) = run_batch(*f, it);
            lc.push(c);
            lw.push(w);
        }
    }
    let op_t = Timing {
        cpu_s: Stats::of(&oc),
        wall_s: Stats::of(&ow),
        repetitions: reps,
        iterations: it_op,
    };
    let lb_t = it_lb.map(|it| Timing {
        cpu_s: Stats::of(&lc),
        wall_s: Stats::of(&lw),
        repetitions: reps,
        iterations: it,
    });
    (op_t, lb_t)
}

/// Times one run of `f` (for set-up, too slow to repeat).
pub fn time_once<T>(f: impl FnOnce() -> T) -> (T, Timing) {
    let c0 = process_cpu_seconds();
    let w0 = Instant::now();
    let out = f();
    let wall = w0.elapsed().as_secs_f64();
    let cpu = process_cpu_seconds() - c0;
    let s = |x: f64| Stats {
        median: x,
        min: x,
        max: x,
    };
    (
        out,
        Timing {
            cpu_s: s(cpu),
            wall_s: s(wall),
            repetitions: 1,
            iterations: 1,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_and_alternating_timing() {
        let s = Stats::of(&[3.0, 1.0, 2.0, 10.0]);
        assert_eq!((s.median, s.min, s.max), (2.5, 1.0, 10.0));
        assert_eq!(Stats::of(&[4.0]).median, 4.0);
        let plan = Plan {
            repetitions: 3,
            rep_seconds: 0.002,
        };
        let mut x = 0u64;
        let mut slow = || {
            for i in 0..20_000u64 {
                x = x.wrapping_mul(31).wrapping_add(i);
            }
            std::hint::black_box(x);
        };
        let mut y = 0u64;
        let mut fast = || {
            y = std::hint::black_box(y.wrapping_add(1));
        };
        let (a, b) = time_pair(&plan, &mut slow, Some(&mut fast));
        let b = b.unwrap();
        assert_eq!(a.repetitions, 3);
        assert!(a.iterations >= 1 && b.iterations > a.iterations);
        assert!(a.cpu_s.median > b.cpu_s.median);
        assert!(a.cpu_s.min <= a.cpu_s.median && a.cpu_s.median <= a.cpu_s.max);
    }
}
