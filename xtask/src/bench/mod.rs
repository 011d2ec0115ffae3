//! `cargo xtask bench ...`: measurements against a reference run in the same
//! invocation. Figures are medians of several runs; nothing here is a timed
//! test that could fail on a slow machine, except where a result is wrong.

mod emulator;
mod ui;
mod engine;
pub mod profile;

use crate::util::Result;
use clap::Subcommand;
use std::time::Duration;

#[derive(Subcommand)]
pub enum Which {
    /// The desktop window (under xvfb-run) against the headless emulator: throughput at max speed, CPU at 1x
    Ui {
        /// Runs of each measurement (the median is reported)
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Wall seconds of each window run
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
    },
    /// Emulated MHz of this emulator against simavr on a chess-perft ELF
    Emulator {
        /// Timed runs of each emulator (the median is reported)
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Perft depth of the benchmark program (3..=4 are exact)
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(2..=4))]
        depth: u8,
    },
    /// The engine on the AVR build in the emulator: nps over
    /// assets/bench_positions.epd, depth at 3 min per move, ratio to the previous build
    Engine(engine::Args),
}

pub fn run(which: Which) -> Result {
    match which {
        Which::Ui { runs, seconds } => ui::run(runs.max(1), seconds),
        Which::Emulator { runs, depth } => emulator::run(runs.max(1), depth),
        Which::Engine(args) => engine::run(args),
    }
}

/// Median of a set of durations.
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    let n = samples.len();
    if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2
    }
}
