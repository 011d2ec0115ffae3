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
    /// Open the board in a window, with a debugger one click away (default: the firmware built by `cargo xtask firmware`)
    Play {
        /// AVR ELF file to run (default: target/avr-none/avr/prodigy.elf)
        elf: Option<PathBuf>,
        /// Clock frequency in MHz
        #[arg(long, default_value_t = 8.0)]
        mhz: f64,
        /// Initial speed: 1x (real time), 10x or max
        #[arg(long, default_value = "1x", value_parser = parse_speed)]
        speed: board_sim::app::Speed,
        /// Start paused
        #[arg(long)]
        paused: bool,
        /// Open with the debugger panel (the toolbar's Debugger button toggles it)
        #[arg(long)]
        debugger: bool,
        /// Benchmark: measure the window this many seconds (after a 1 s warm-up), print emulated MHz and CPU time, exit
        #[arg(long, hide = true)]
        bench_seconds: Option<f64>,
    },
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
        /// EEPROM image file: loaded first if it exists, written back at the end
        #[arg(long)]
        eeprom: Option<PathBuf>,
    },
    /// Speak UCI on stdin/stdout by driving the firmware over its emulated serial port
    Uci {
        /// AVR ELF file to run (default: target/avr-none/avr/prodigy.elf)
        elf: Option<PathBuf>,
    },
    /// Serve the GDB remote protocol so avr-gdb can debug the running board
    Gdb {
        /// AVR ELF file to run
        elf: PathBuf,
        /// TCP port on 127.0.0.1 (0: any free one; the first stdout line tells)
        #[arg(long, default_value_t = 1234)]
        port: u16,
        /// Clock frequency in MHz
        #[arg(long, default_value_t = 8.0)]
        mhz: f64,
        /// Run flat out instead of in real time
        #[arg(long)]
        fast: bool,
        /// Don't echo LCD changes on stderr
        #[arg(long)]
        quiet: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Play { elf, mhz, speed, paused, debugger, bench_seconds } => {
            let opts = board_sim::app::PlayOptions { elf, mhz, speed, paused, bench_seconds, debugger };
            match board_sim::app::run(opts) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("board-sim: error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Run { elf, mhz, max_cycles, until_sleep, keys, json, eeprom } => {
            let opts = RunOptions { elf, mhz, max_cycles, until_sleep, keys, eeprom };
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
        Command::Uci { elf } => ExitCode::from(board_sim::uci::run(&board_sim::uci::Options { elf, clock_hz: 8_000_000 })),
        Command::Gdb { elf, port, mhz, fast, quiet } => {
            let opts = board_sim::gdb::GdbOptions { elf, port, mhz, fast, echo_lcd: !quiet };
            match board_sim::gdb::serve(&opts) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("board-sim: error: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}

/// `--speed` of `play`.
fn parse_speed(s: &str) -> Result<board_sim::app::Speed, String> {
    match s {
        "1x" | "1" | "realtime" => Ok(board_sim::app::Speed::RealTime),
        "10x" | "10" => Ok(board_sim::app::Speed::Fast),
        "max" => Ok(board_sim::app::Speed::Max),
        other => Err(format!("`{other}` is not a speed: use 1x, 10x or max")),
    }
}
