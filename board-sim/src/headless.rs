//! `board-sim run`: the board without a window, for scripts, tests and
//! benchmarks. Prints a human summary or one JSON object.

use crate::board::Board;
use crate::parts::KeyScript;
use emulator::avr::Stop;
use emulator::periph::eeprom::Eeprom;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

pub struct RunOptions {
    pub elf: PathBuf,
    pub mhz: f64,
    pub max_cycles: Option<u64>,
    pub until_sleep: bool,
    pub keys: Option<PathBuf>,
    /// EEPROM image: loaded before the run when the file exists, written back after it.
    pub eeprom: Option<PathBuf>,
}

/// What `--json` prints.
#[derive(Serialize)]
pub struct Report {
    pub cycles: u64,
    pub seconds: f64,
    pub pc: u32,
    pub sp: u16,
    pub min_sp: u16,
    pub sreg: u8,
    pub r: Vec<u8>,
    pub gpior: [u8; 3],
    pub stop: String,
    pub warnings: Vec<String>,
    pub lcd: [String; 2],
    pub lcd_warnings: Vec<String>,
    /// Host wall time of the run and the emulated MHz it gives.
    pub wall_seconds: f64,
    pub emulated_mhz: f64,
}

/// Cycles run when neither `--max-cycles` nor `--until-sleep` bounds the run.
const DEFAULT_SECONDS: f64 = 10.0;

pub fn run(opts: &RunOptions) -> Result<(Report, bool), String> {
    if !(opts.mhz > 0.0 && opts.mhz <= 100.0) {
        return Err(format!("--mhz {} is out of range (0 < MHz <= 100)", opts.mhz));
    }
    let clock_hz = (opts.mhz * 1e6).round() as u32;
    let mut board = Board::from_elf_file(&opts.elf, clock_hz)?;
    if let Some(path) = &opts.keys {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read key script {}: {e}", path.display()))?;
        let script = KeyScript::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        board.load_key_script(&script);
    }
    if let Some(path) = opts.eeprom.as_deref().filter(|p| p.exists()) {
        eeprom(&mut board)?.load_file(path)?;
    }
    let limit = opts.max_cycles.unwrap_or(if opts.until_sleep { u64::MAX } else { (DEFAULT_SECONDS * clock_hz as f64) as u64 });
    let started = Instant::now();
    let stop = run_board(&mut board, limit, opts.until_sleep);
    let wall = started.elapsed().as_secs_f64();
    if let Some(path) = &opts.eeprom {
        eeprom(&mut board)?.save_file(path)?;
    }
    let ok = matches!(stop, Stop::CycleLimit | Stop::Sleeping { .. } | Stop::Break(_));
    Ok((report(&board, stop, wall), ok))
}

fn eeprom(board: &mut Board) -> Result<&mut Eeprom, String> {
    board.avr.peripheral_mut::<Eeprom>().ok_or_else(|| "this chip has no EEPROM peripheral".to_string())
}

/// Runs in slices so `--until-sleep` can stop at a SLEEP with I clear.
fn run_board(board: &mut Board, limit: u64, until_sleep: bool) -> Stop {
    let end = board.avr.cycles().saturating_add(limit);
    loop {
        let stop = board.run_until(end);
        match stop {
            Stop::Sleeping { interrupts_enabled: false, .. } if until_sleep => return stop,
            Stop::Sleeping { interrupts_enabled: true, .. } => {
                // Asleep with only external wake-ups possible: nothing will
                // happen unless a button script acts, so jump there.
                let now = board.avr.cycles();
                match board.buttons.next_change(now) {
                    Some(c) if c < end => {
                        board.avr.skip_to(c);
                        continue;
                    }
                    _ => return stop,
                }
            }
            other => return other,
        }
    }
}

pub fn report(board: &Board, stop: Stop, wall_seconds: f64) -> Report {
    let avr = &board.avr;
    let cycles = avr.cycles();
    let gp = |a: u16| avr.read_data(a).unwrap_or(0);
    Report {
        cycles,
        seconds: avr.seconds(),
        pc: avr.pc() * 2,
        sp: avr.sp(),
        min_sp: avr.min_sp(),
        sreg: avr.sreg(),
        r: avr.regs().to_vec(),
        gpior: [gp(0x3E), gp(0x4A), gp(0x4B)],
        stop: describe_stop(&stop),
        warnings: avr.warnings().iter().map(|w| format!("cycle {} pc {}: {}: {}", w.cycle, w.pc.map(|p| format!("0x{:04x}", p * 2)).unwrap_or("-".into()), w.source, w.message)).collect(),
        lcd: board.lcd_text(),
        lcd_warnings: board.lcd_warnings().iter().map(|w| w.to_string()).collect(),
        wall_seconds,
        emulated_mhz: if wall_seconds > 0.0 { cycles as f64 / wall_seconds / 1e6 } else { 0.0 },
    }
}

pub fn describe_stop(stop: &Stop) -> String {
    match stop {
        Stop::CycleLimit => "cycle limit".into(),
        Stop::Stepped => "stepped".into(),
        Stop::PinChange => "pin change".into(),
        Stop::Breakpoint(pc) => format!("breakpoint at 0x{:04x}", pc * 2),
        Stop::Watchpoint { addr, kind, pc } => format!("watchpoint: {kind:?} of 0x{addr:04x} at pc 0x{:04x}", pc * 2),
        Stop::Sleeping { pc, interrupts_enabled } => {
            format!("sleeping at 0x{:04x} with interrupts {}", pc * 2, if *interrupts_enabled { "enabled" } else { "disabled" })
        }
        Stop::Fault(f) => format!("fault: {f}"),
        Stop::StackCollision { pc, cycle, sp } => format!("stack collision: SP 0x{sp:04x} at pc 0x{:04x}, cycle {cycle}", pc * 2),
        Stop::Break(pc) => format!("BREAK at 0x{:04x}", pc * 2),
    }
}

pub fn print_human(r: &Report) {
    println!("stopped: {} after {} cycles ({:.6} s emulated, {:.1} emulated MHz)", r.stop, r.cycles, r.seconds, r.emulated_mhz);
    println!("pc 0x{:04x}  sp 0x{:04x}  min sp 0x{:04x}  sreg 0x{:02x}", r.pc, r.sp, r.min_sp, r.sreg);
    for row in 0..4 {
        let regs: Vec<String> = (0..8).map(|i| format!("r{:<2}={:02x}", row * 8 + i, r.r[row * 8 + i])).collect();
        println!("{}", regs.join(" "));
    }
    println!("LCD |{}|", r.lcd[0]);
    println!("    |{}|", r.lcd[1]);
    for w in r.warnings.iter().chain(&r.lcd_warnings) {
        println!("warning: {w}");
    }
}
