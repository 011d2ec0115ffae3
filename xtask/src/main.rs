//! `cargo xtask`: the project's automation, one subcommand per job.

mod bench;
mod book;
mod firmware;
mod ram;
mod rig;
mod setup;
mod size;
mod test;
mod tune;
mod uci_tools;
mod util;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Build, test and benchmark the Chess Prodigy workspace")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check and install what the project needs (AVR toolchain, test oracles)
    Setup {
        /// Only report what is missing; install nothing
        #[arg(long)]
        check: bool,
    },
    /// Build the release firmware ELF and print its size table
    Firmware,
    /// Build the firmware and open the desktop window on it
    Play {
        /// Extra arguments for `board-sim play`
        #[arg(trailing_var_arg = true)]
        args: Vec<String>,
    },
    /// Everything CI checks: set-up, firmware with budgets, all tests
    Test,
    /// RAM and flash fit: static map, static stack bound, measured stack, baseline diff, target/ram-map.svg
    Ram {
        /// Write assets/ram_baseline.json from this build (commit it with the change)
        #[arg(long)]
        update_baseline: bool,
    },
    /// Benchmarks (print ratios against a reference measured in the same run)
    Bench {
        #[command(subcommand)]
        which: bench::Which,
    },
    /// Opening book: build assets/book.bin from assets/book.txt, check it with Stockfish, stats
    Book {
        #[command(subcommand)]
        action: book::Action,
    },
    /// Run an EPD test suite through the UCI bridge on the firmware: solved X/N
    Suite(uci_tools::suite::Args),
    /// Play the firmware through the UCI bridge against a reference engine: score and Elo
    Match(uci_tools::match_::Args),
    /// Mate the lone king with K+Q, K+R and K+B+N from random positions, Stockfish defending
    Endgames(uci_tools::endgames::Args),
    /// Two `endgames --seeds` outputs of the same seeds, seed by seed: the paired difference of plies lost and the long play-outs
    EndgamesDiff(uci_tools::endgames_diff::Args),
    /// Build the firmware's KBNK book from `endgames --dump` files: the tables' move where play-outs lose most
    KbnkBook(uci_tools::kbnk_book::Args),
    /// Two `match --pgn` files of one setting, game by game: the score difference and its error
    MatchDiff(uci_tools::match_diff::Args),
    /// The engine built for this machine as a UCI engine, its clock at the AVR's speed (fast A/B matches)
    HostEngine(uci_tools::host_engine::Args),
    /// Fit the evaluation's weights to Stockfish's scores of quiet positions from match games
    Tune {
        #[command(subcommand)]
        action: tune::Action,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Setup { check } => setup::run(check),
        Command::Firmware => firmware::build_and_report().map(|_| ()),
        Command::Play { args } => firmware::build_and_report().and_then(|fw| {
            let mut cmd = vec!["play".to_string(), fw.elf.display().to_string()];
            cmd.extend(args);
            util::cargo_host(&["run", "--release", "--quiet", "-p", "board-sim", "--"], &cmd)
        }),
        Command::Test => test::run(),
        Command::Ram { update_baseline } => ram::run(update_baseline),
        Command::Bench { which } => bench::run(which),
        Command::Book { action } => book::run(action),
        Command::Suite(args) => uci_tools::suite::run(args),
        Command::Match(args) => uci_tools::match_::run(args),
        Command::Endgames(args) => uci_tools::endgames::run(args),
        Command::EndgamesDiff(args) => uci_tools::endgames_diff::run(args),
        Command::KbnkBook(args) => uci_tools::kbnk_book::run(args),
        Command::MatchDiff(args) => uci_tools::match_diff::run(args),
        Command::HostEngine(args) => uci_tools::host_engine::run(args),
        Command::Tune { action } => tune::run(action),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}
