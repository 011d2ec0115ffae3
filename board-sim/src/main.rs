//! `board-sim`: the Chess Prodigy board on the desk, in a window or headless.

use board_sim::headless::{self, RunOptions};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "board-sim", version, about = "The Chess Prodigy board: an emulated ATmega644 with LCD, buttons and buzzer")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an ELF without a window and report the machine state
    Run {
        /// AVR ELF file to run
        elf: PathBuf,
        /// Clock frequency in MHz
        #[arg(long, default_value_t = 8.0)]
        mhz: f64,
        /// Stop after this many cycles (default: 10 emulated seconds)
        #[arg(long)]
        max_cycles: Option<u64>,
        /// Stop when the CPU executes SLEEP with interrupts disabled
        #[arg(long)]
        until_sleep: bool,
        /// Key script pressing and releasing buttons at emulated times
        #[arg(long)]
        keys: Option<PathBuf>,
        /// Print one JSON object instead of a summary
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { elf, mhz, max_cycles, until_sleep, keys, json } => {
            let opts = RunOptions { elf, mhz, max_cycles, until_sleep, keys };
            match headless::run(&opts) {
                Ok((report, ok)) => {
                    if json {
                        println!("{}", serde_json::to_string(&report).expect("report serialises"));
                    } else {
                        headless::print_human(&report);
                    }
                    if ok {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::from(3)
                    }
                }
                Err(e) => {
                    eprintln!("board-sim: error: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}
