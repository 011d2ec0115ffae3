//! `cargo xtask ram`: every build proves the firmware fits the ATmega644.
//!
//! * static map ([`static_map`]): `.data`/`.bss`/`.noinit` and flash split
//!   into vectors, code, progmem tables and the opening book, with the
//!   biggest symbols;
//! * static stack bound ([`stack_bound`]): from the ELF's code alone;
//! * measured peak: the firmware runs on the emulated board (LCD and
//!   buttons attached) through a list of [`Workload`] steps
//!   ([`workloads`]: boot, deep and quiescence-heavy searches, a serial
//!   game with pondering, a keypad game, every menu screen) and the lowest
//!   SP of each step is recorded;
//! * verdict: static RAM + max(measured peak, finite static bound) must stay
//!   under [`RAM_BUDGET`], flash under 64 KB, and neither may grow past the
//!   thresholds of [`baseline`] against `assets/ram_baseline.json` unless the
//!   baseline is updated in the same change (`--update-baseline`);
//! * picture ([`svg`]): `target/ram-map.svg`.

pub mod baseline;
pub mod stack_bound;
pub mod static_map;
pub mod svg;
pub mod workloads;

use crate::rig::Rig;
use crate::util::{root, Result};
use baseline::Baseline;
use emulator::cpu::decode::Instr;
use emulator::loader::{Program, Space};
use emulator::{Avr, RunLimit, Stop};
use stack_bound::Declarations;
use static_map::StaticMap;
use std::path::{Path, PathBuf};

/// 4096 B of SRAM less a 256 B margin.
pub const RAM_BUDGET: u32 = 3840;
pub const FLASH_BUDGET: u32 = 65_536;
const RAMEND: u16 = 0x10FF;

pub fn baseline_path() -> PathBuf {
    root().join("assets/ram_baseline.json")
}

pub fn svg_path() -> PathBuf {
    root().join("target/ram-map.svg")
}

/// The firmware's limits a `recursion` declaration may name as its
/// max-depth (`MAX_PLY`, `MAX_PLY-1`...), read from the firmware crate
/// itself (built for the host from the same source as the ELF), so the
/// bound follows the code rather than a copy of the number.
pub fn firmware_constants() -> Vec<(&'static str, u32)> {
    vec![
        ("MAX_PLY", firmware::engine::MAX_PLY as u32),
        ("MAX_PERFT", firmware::protocol::MAX_PERFT as u32),
    ]
}

/// The declarations of `assets/stack_targets.txt` and `assets/stack_recursion.txt`
/// (both optional).
pub fn declarations() -> Result<Declarations> {
    let mut d = Declarations::default();
    for name in ["assets/stack_targets.txt", "assets/stack_recursion.txt"] {
        let path = root().join(name);
        if let Ok(text) = std::fs::read_to_string(&path) {
            d.merge(Declarations::parse_with(&text, name, &firmware_constants())?);
        }
    }
    Ok(d)
}

// --- dynamic measurement ------------------------------------------------------

/// One step of the dynamic measurement. Steps run in order on one board
/// (powered on with the firmware, LCD and buttons attached), each starting
/// where the previous one stopped, so a step can press buttons, talk over
/// the serial line ([`Rig`]) or wait. The lowest SP is reset before each
/// step, so each step's figure is its own.
///
/// To measure a new scenario, implement this and add it to
/// [`workloads::all`].
pub trait Workload {
    fn name(&self) -> String;
    /// Drives the board. Return the stop that ended the step; anything but
    /// a cycle limit or an expected sleep should be an `Err`. A stack
    /// collision is detected by the caller (from the returned stop, or from
    /// the lowest SP when the serial link reports the chip dead).
    fn run(&self, rig: &mut Rig) -> std::result::Result<Stop, String>;
}

/// Power-on and let the firmware run for a while on its own (the tests'
/// step for small C programs).
#[cfg_attr(not(test), allow(dead_code))]
pub struct Boot {
    pub seconds: f64,
}

impl Workload for Boot {
    fn name(&self) -> String {
        format!("boot, {} s idle", self.seconds)
    }

    fn run(&self, rig: &mut Rig) -> std::result::Result<Stop, String> {
        // The chip alone (the parts see nothing): stops at `cli; sleep`.
        let avr = &mut rig.board().avr;
        let cycles = (avr.config().clock_hz as f64 * self.seconds) as u64;
        Ok(avr.run(RunLimit::UntilSleep { max_cycles: cycles }))
    }
}

/// The steps `cargo xtask ram` measures, in order (see [`workloads`]).
pub fn workloads() -> Vec<Box<dyn Workload>> {
    workloads::all()
}

/// One row of the per-step table.
#[derive(Clone, Debug)]
pub struct StepResult {
    pub name: String,
    pub cycles: u64,
    /// Lowest SP during this step (the mark is reset before each step).
    pub min_sp: u16,
    /// Real time the step took.
    pub wall: std::time::Duration,
    pub stop: String,
}

impl StepResult {
    pub fn peak(&self) -> u32 {
        (RAMEND - self.min_sp) as u32
    }
}

/// `function` or `function+0x12` for a flash byte address: the sized
/// symbol containing it, else the nearest symbol below it.
fn flash_label(program: &Program, addr: u32) -> String {
    if let Some((s, _)) = program.symbols.containing(Space::Flash, addr) {
        return stack_bound::short(&stack_bound::demangle(&s.name));
    }
    program
        .symbols
        .symbols
        .iter()
        .filter(|s| s.space == Space::Flash && s.address <= addr && !s.name.starts_with('.'))
        .max_by_key(|s| s.address)
        .map(|s| format!("{}+{:#x}", stack_bound::short(&stack_bound::demangle(&s.name)), addr - s.address))
        .unwrap_or_else(|| "?".into())
}

/// The return addresses found on the stack, innermost first: every byte
/// pair (high byte first, as `CALL` pushes it) that points right after a
/// `CALL` or `RCALL`, named by the function containing that call. Runs of
/// the same call (recursion) are folded into one line with a count.
pub fn call_chain(avr: &Avr, program: &Program) -> Vec<String> {
    let mut calls: Vec<(u32, u32)> = Vec::new(); // (call byte address, stack slot)
    let mut a = avr.sp() as u32 + 1;
    while a < RAMEND as u32 {
        let hi = avr.read_data(a as u16).unwrap_or(0) as u32;
        let lo = avr.read_data(a as u16 + 1).unwrap_or(0) as u32;
        let ret = hi << 8 | lo; // word address
        let call = if ret == 0 || ret as usize >= program.flash.len() / 2 {
            None
        } else if matches!(avr.instruction(ret - 1), Instr::Rcall { .. }) {
            Some(ret - 1)
        } else if ret >= 2 && matches!(avr.instruction(ret - 2), Instr::Call { .. }) {
            Some(ret - 2)
        } else {
            None
        };
        match call {
            Some(c) => {
                calls.push((c * 2, a));
                a += 2;
            }
            None => a += 1,
        }
    }
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < calls.len() {
        let (call, slot) = calls[i];
        let run = calls[i..].iter().take_while(|c| c.0 == call).count();
        let name = flash_label(program, call);
        if run > 1 {
            out.push(format!("{name} (call at {call:#06x}) x {run}, return addresses at {slot:#06x}..{:#06x}", calls[i + run - 1].1));
        } else {
            out.push(format!("{name} (call at {call:#06x}, return address at {slot:#06x})"));
        }
        i += run;
    }
    out
}

/// What the workloads measured.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// One row per step run; a step that collided or faulted is the last
    /// row (its lowest SP is the collision's).
    pub steps: Vec<StepResult>,
    /// Why the measurement stopped early: a stack collision (with the PC,
    /// cycle and the call chain), a fault or a step's error. The verdict
    /// fails on it.
    pub failure: Option<String>,
}

impl Measurement {
    pub fn peak(&self) -> u32 {
        self.steps.iter().map(|s| s.peak()).max().unwrap_or(0)
    }
}

/// Runs the workloads on the firmware. A stack collision or a fault ends the
/// run and becomes [`Measurement::failure`], with the PC, cycle and the
/// call chain; an `Err` only when the board cannot be set up.
pub fn measure(elf: &[u8], steps: &[Box<dyn Workload>]) -> Result<Measurement> {
    let mut rig = Rig::new(elf)?;
    let program = rig.board().program.clone();
    let mut rows = Vec::new();
    for step in steps {
        let wall = std::time::Instant::now();
        let start = rig.board().avr.cycles();
        match run_step(&mut rig, &program, step.as_ref()) {
            Ok(stop) => {
                let avr = &rig.board().avr;
                rows.push(StepResult { name: step.name(), cycles: avr.cycles() - start, min_sp: avr.min_sp(), wall: wall.elapsed(), stop });
            }
            Err(why) => {
                let avr = &rig.board().avr;
                let stop = why.lines().next().unwrap_or("failed").to_string();
                rows.push(StepResult { name: step.name(), cycles: avr.cycles() - start, min_sp: avr.min_sp(), wall: wall.elapsed(), stop });
                return Ok(Measurement { steps: rows, failure: Some(why) });
            }
        }
    }
    Ok(Measurement { steps: rows, failure: None })
}

/// One step: its stop as text, or the collision/fault/step error.
fn run_step(rig: &mut Rig, program: &Program, step: &dyn Workload) -> std::result::Result<String, String> {
    {
        rig.board().avr.reset_min_sp();
        let result = step.run(rig);
        let avr = &rig.board().avr;
        // The serial link reports a collision as a dead chip: the lowest SP
        // tells. The CPU stopped right after the instruction that collided.
        if avr.min_sp() < avr.stack_limit() && !matches!(result, Ok(Stop::StackCollision { .. })) {
            let (pc, cycle, sp) = (avr.pc(), avr.cycles(), avr.min_sp());
            let why = result.err().map(|e| format!("\n  (the step said: {e})")).unwrap_or_default();
            return Err(collision(avr, program, &step.name(), pc, cycle, sp) + &why);
        }
        let stop = result.map_err(|e| format!("step `{}`: {e}", step.name()))?;
        let stop_text = match stop {
            Stop::CycleLimit => "ran to its end".to_string(),
            Stop::Sleeping { pc, interrupts_enabled } => {
                format!("sleeping at {:#06x} (interrupts {})", pc * 2, if interrupts_enabled { "on" } else { "off" })
            }
            Stop::StackCollision { pc, cycle, sp } => return Err(collision(avr, program, &step.name(), pc, cycle, sp)),
            Stop::Fault(f) => return Err(format!("step `{}`: the firmware faulted: {f}", step.name())),
            other => format!("{other:?}"),
        };
        let mut stop = stop_text;
        for note in rig.notes.drain(..) {
            stop = format!("{stop}; {note}");
        }
        Ok(stop)
    }
}

/// The error for a stack collision: PC, cycle, SP and the call chain.
fn collision(avr: &Avr, program: &Program, step: &str, pc: u32, cycle: u64, sp: u16) -> String {
    let chain = call_chain(avr, program);
    format!(
        "stack collision in step `{step}`: SP {sp:#06x} below the end of static data {:#06x} at PC {:#06x} ({}), cycle {cycle}\n  call chain (innermost first):\n    {}",
        avr.stack_limit(),
        pc * 2,
        flash_label(program, pc * 2),
        if chain.is_empty() { "(no return addresses found)".to_string() } else { chain.join("\n    ") }
    )
}

// --- the command ----------------------------------------------------------------

/// Everything `cargo xtask ram` computes about one ELF.
pub struct Report {
    pub map: StaticMap,
    pub analysis: stack_bound::Analysis,
    pub steps: Vec<StepResult>,
    /// The measurement stopped on a collision, a fault or a step error.
    pub failure: Option<String>,
    pub now: Baseline,
}

/// The static map, the static bound (with `decl`) and the measurement over
/// `steps` of an ELF image.
pub fn analyse_program(bytes: &[u8], steps: &[Box<dyn Workload>], decl: &Declarations) -> Result<Report> {
    let program = emulator::loader::elf::parse(bytes).map_err(|e| e.to_string())?;
    let map = StaticMap::from_program(&program);
    // The firmware is linked with `--emit-relocs`: its function pointers
    // are read from the relocations; a foreign ELF's are guessed.
    let relocs = stack_bound::read_code_relocations(bytes);
    let pointers = match &relocs {
        Ok(r) => stack_bound::Pointers::Relocated(r),
        Err(why) => stack_bound::Pointers::Guessed(why),
    };
    let analysis = stack_bound::analyse(&program, pointers, decl);
    let m = measure(bytes, steps)?;
    let peak = m.peak();
    let bound = analysis.total.finite();
    let now = Baseline {
        static_ram: map.static_ram(),
        flash: map.flash(),
        stack_bound: bound,
        measured_peak: peak,
        total_ram: map.static_ram() + peak.max(bound.unwrap_or(0)),
    };
    Ok(Report { map, analysis, steps: m.steps, failure: m.failure, now })
}

pub fn analyse_elf(elf: &Path) -> Result<Report> {
    let bytes = std::fs::read(elf).map_err(|e| format!("cannot read {}: {e}", elf.display()))?;
    analyse_program(&bytes, &workloads(), &declarations()?).map_err(|e| format!("{}: {e}", elf.display()))
}

/// The RAM verdict: every reason the build does not fit, empty when it
/// does. `old` is the committed baseline (growth beyond its thresholds
/// fails), `None` to judge the budgets alone.
pub fn verdict(r: &Report, old: Option<&Baseline>) -> Vec<String> {
    let n = &r.now;
    let mut fails = Vec::new();
    if let Some(why) = &r.failure {
        fails.push(format!("the measurement failed: {why}"));
    }
    if n.total_ram > RAM_BUDGET {
        fails.push(format!("RAM over budget: {} B > {RAM_BUDGET} B (4096 B less a 256 B margin)", n.total_ram));
    }
    if n.flash > FLASH_BUDGET {
        fails.push(format!("flash over budget: {} B > {FLASH_BUDGET} B", n.flash));
    }
    if let Some(b) = n.stack_bound {
        if n.measured_peak > b {
            fails.push(format!(
                "the measured stack peak {} B exceeds the static bound {b} B: the static analysis (or a declaration in assets/stack_*.txt) is wrong",
                n.measured_peak
            ));
        }
    }
    if let Some(old) = old {
        fails.extend(old.diff(n).1);
    }
    fails
}

/// `cargo xtask ram [--update-baseline]`. With `XTASK_RAM_ELF=path` set,
/// that ELF is checked instead of building the firmware (a last good build
/// while the firmware does not build; not for CI).
pub fn run(update_baseline: bool) -> Result {
    if let Some(elf) = std::env::var_os("XTASK_RAM_ELF") {
        println!("== ram: XTASK_RAM_ELF set: checking {} without building", PathBuf::from(&elf).display());
        return check(Path::new(&elf), update_baseline);
    }
    let fw = crate::firmware::build_and_report()?;
    check(&fw.elf, update_baseline)
}

/// The report, the picture and the verdict for an ELF already built.
pub fn check(elf: &Path, update_baseline: bool) -> Result {
    println!("== ram: static map, stack bound and measured stack of {}", elf.display());
    let r = analyse_elf(elf)?;
    print!("{}", r.map.report(8));
    print!("{}", r.analysis.report());
    println!("  measured (the emulated board: LCD and buttons attached, driven over the serial line and the buttons):");
    println!("    {:<50}{:>12}{:>10}{:>12}{:>8}  stop", "step", "cycles", "lowest SP", "peak stack", "real s");
    for s in &r.steps {
        println!("    {:<50}{:>12}{:>#10x}{:>10} B{:>8.1}  {}", s.name, s.cycles, s.min_sp, s.peak(), s.wall.as_secs_f64(), s.stop);
    }
    let cycles: u64 = r.steps.iter().map(|s| s.cycles).sum();
    let wall: f64 = r.steps.iter().map(|s| s.wall.as_secs_f64()).sum();
    println!("    ({} steps, {:.0} s emulated in {wall:.1} s real; each step's lowest SP is its own)", r.steps.len(), cycles as f64 / 8e6);
    for s in r.steps.iter().filter(|s| s.stop.contains("interrupts off")) {
        println!("  warning: the firmware stopped for good (cli; sleep) in step `{}`: later steps measure nothing", s.name);
    }
    if let Some(why) = &r.failure {
        println!("  {why}");
    }

    let svg = svg::render(
        &r.map,
        &svg::Marks {
            min_sp: r.steps.iter().map(|s| s.min_sp).min(),
            bound: r.analysis.total.finite(),
            budget: RAM_BUDGET,
        },
    );
    let svg_file = svg_path();
    std::fs::write(&svg_file, svg).map_err(|e| format!("cannot write {}: {e}", svg_file.display()))?;

    let n = &r.now;
    let stack_used = n.total_ram - n.static_ram;
    println!();
    println!("  {:<40}{:>8}  {:>8}", "", "used", "budget");
    println!(
        "  {:<40}{:>6} B  {:>6} B",
        format!(
            "RAM = static {} + stack {} ({})",
            n.static_ram,
            stack_used,
            match n.stack_bound {
                Some(b) if b >= n.measured_peak => "static bound",
                Some(_) => "measured",
                None => "measured; static bound unbounded",
            }
        ),
        n.total_ram,
        RAM_BUDGET
    );
    println!("  {:<40}{:>6} B  {:>6} B", "flash (.text + .data image)", n.flash, FLASH_BUDGET);
    if let Some(b) = n.stack_bound {
        println!(
            "  static stack bound {b} B vs measured peak {} B: {:.2}x, {} B of margin the workloads did not reach",
            n.measured_peak,
            b as f64 / n.measured_peak.max(1) as f64,
            b as i64 - n.measured_peak as i64
        );
    }
    println!("  map: {}", svg_file.display());

    let path = baseline_path();
    let mut old = None;
    if update_baseline {
        std::fs::write(&path, n.to_json()).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("  baseline written: {} (commit it with the change)", path.display());
    } else {
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let b = Baseline::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
                println!("  against {}:", path.display());
                print!("{}", b.diff(n).0);
                old = Some(b);
            }
            Err(_) => println!("  no baseline at {} yet: `cargo xtask ram --update-baseline` writes it", path.display()),
        }
    }
    let fails = verdict(&r, old.as_ref());
    if fails.is_empty() {
        println!("== ram: fits");
        Ok(())
    } else {
        Err(fails.join("\n"))
    }
}

/// Compiles a C program with `avr-gcc -mmcu=atmega644 -Os` in a temp dir
/// and returns the ELF (tests only).
#[cfg(test)]
pub(crate) fn compile_c(name: &str, src: &str, extra: &[&str]) -> Vec<u8> {
    let dir = tempfile::Builder::new().prefix("xtask-ram-").tempdir().unwrap();
    let c = dir.path().join(format!("{name}.c"));
    let elf = dir.path().join(format!("{name}.elf"));
    std::fs::write(&c, src).unwrap();
    let out = std::process::Command::new("avr-gcc")
        .args(["-mmcu=atmega644", "-Os", "-o"])
        .arg(&elf)
        .arg(&c)
        .args(extra)
        .output()
        .expect("avr-gcc is needed for these tests: cargo xtask setup");
    assert!(out.status.success(), "avr-gcc failed: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::read(&elf).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unbounded recursion with a big `.bss`: the emulator reports the
    /// collision and the chain is rebuilt from the return addresses.
    #[test]
    fn stack_collision_reports_pc_cycle_and_call_chain() {
        let elf = compile_c(
            "collide",
            r#"
#include <avr/io.h>
volatile unsigned char big[3000];
__attribute__((noinline)) unsigned char down(unsigned char n) { volatile unsigned char b[16]; b[0] = n; return down(n + 1) + b[0]; }
__attribute__((noinline)) unsigned char start(void) { big[0] = 1; return down(0) + 1; }
int main(void) { big[1] = start(); for (;;) {} }
"#,
            &[],
        );
        let steps: Vec<Box<dyn Workload>> = vec![Box::new(Boot { seconds: 0.1 })];
        let m = measure(&elf, &steps).unwrap();
        let err = m.failure.unwrap();
        assert_eq!(m.steps.len(), 1);
        assert!(m.steps[0].stop.starts_with("stack collision"), "{}", m.steps[0].stop);
        assert!(err.contains("stack collision in step `boot, 0.1 s idle`"), "{err}");
        assert!(err.contains("at PC 0x") && err.contains("cycle "), "{err}");
        let chain: Vec<&str> = err.lines().skip_while(|l| !l.contains("call chain")).skip(1).map(str::trim).collect();
        // down x many, start, main, and the start-up code's `call main`.
        assert_eq!(chain.len(), 4, "{err}");
        assert!(chain[0].starts_with("down (call at") && chain[0].contains(") x "), "{err}");
        assert!(chain[1].starts_with("start (call at"), "{err}");
        assert!(chain[2].starts_with("main (call at"), "{err}");
    }

    /// A program that returns to `cli; sleep`: one step, its peak.
    #[test]
    fn measures_the_lowest_sp_per_step() {
        let elf = compile_c(
            "peak",
            r#"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
volatile unsigned char sink;
__attribute__((noinline)) void f(void) { volatile unsigned char b[50]; b[0] = 1; sink = b[0]; }
int main(void) { f(); cli(); sleep_cpu(); for (;;) {} }
"#,
            &[],
        );
        let steps: Vec<Box<dyn Workload>> = vec![Box::new(Boot { seconds: 3.0 })];
        let m = measure(&elf, &steps).unwrap();
        assert_eq!(m.failure, None);
        let rows = m.steps;
        assert_eq!(rows.len(), 1);
        // call main 2 + call f 2 + r28/r29 2 + 50.
        assert_eq!(rows[0].peak(), 56);
        assert_eq!(rows[0].min_sp, 0x10FF - 56);
        assert!(rows[0].stop.contains("sleeping"), "{}", rows[0].stop);
    }

    /// A recursion whose depth is a build option (`-DDEPTH=n`), like the
    /// firmware's MAX_PLY: `rec(DEPTH)` has DEPTH + 1 activations, declared
    /// through a named constant as `assets/stack_recursion.txt` does.
    const DEEP: &str = r#"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
volatile unsigned char big[3000];
__attribute__((noinline)) unsigned char rec(unsigned char n) { volatile unsigned char b[16]; b[0] = n; if (n == 0) return b[0]; return rec(n - 1) + b[0]; }
int main(void) { big[0] = rec(DEPTH); cli(); sleep_cpu(); for (;;) {} }
"#;

    fn deep(depth: u32) -> Report {
        let elf = compile_c(&format!("deep{depth}"), DEEP, &[&format!("-DDEPTH={depth}")]);
        let decl = Declarations::parse_with("recursion rec DEPTH+1", "t", &[("DEPTH", depth)]).unwrap();
        let steps: Vec<Box<dyn Workload>> = vec![Box::new(Boot { seconds: 0.1 })];
        analyse_program(&elf, &steps, &decl).unwrap()
    }

    /// The build that recurses too deep: the emulator stops at the
    /// collision (PC, cycle, the chain of `rec` frames down from `main`),
    /// and the verdict fails on it, and on the RAM budget since the static
    /// bound (finite: the depth is declared) is over it too.
    #[test]
    fn too_deep_a_recursion_collides_and_fails_the_verdict() {
        let r = deep(200);
        let why = r.failure.as_deref().expect("the collision must be reported");
        assert!(why.starts_with("stack collision in step `boot, 0.1 s idle`: SP 0x"), "{why}");
        assert!(why.contains(" at PC 0x") && why.contains("(rec), cycle "), "{why}");
        let chain: Vec<&str> = why.lines().skip_while(|l| !l.contains("call chain")).skip(1).map(str::trim).collect();
        assert_eq!(chain.len(), 3, "{why}");
        assert!(chain[0].starts_with("rec (call at") && chain[0].contains(") x "), "{why}");
        assert!(chain[1].starts_with("main (call at"), "{why}");

        let bound = r.now.stack_bound.expect("the declared depth makes the bound finite");
        assert!(bound >= r.now.measured_peak, "bound {bound} < measured {}", r.now.measured_peak);
        assert!(r.now.static_ram + bound > RAM_BUDGET);
        let fails = verdict(&r, None);
        assert!(fails.iter().any(|f| f.starts_with("the measurement failed: stack collision")), "{fails:?}");
        assert!(fails.iter().any(|f| f.starts_with("RAM over budget")), "{fails:?}");
        assert!(!fails.iter().any(|f| f.contains("exceeds the static bound")), "{fails:?}");
    }

    /// The same program at its normal depth fits: no collision, the static
    /// bound is exactly the measured peak (the worst path is the one run:
    /// 5 activations of rec), and the verdict is empty.
    #[test]
    fn the_normal_build_passes_the_verdict() {
        let r = deep(4);
        assert_eq!(r.failure, None);
        assert!(r.steps[0].stop.contains("sleeping"), "{}", r.steps[0].stop);
        assert_eq!(r.now.stack_bound, Some(r.now.measured_peak), "{}", r.analysis.report());
        assert!(r.now.total_ram <= RAM_BUDGET);
        assert_eq!(verdict(&r, None), Vec::<String>::new());
        // The baseline comparison only adds growth beyond its thresholds.
        assert_eq!(verdict(&r, Some(&r.now)), Vec::<String>::new());
        // A measured peak over the static bound is itself a failure.
        let mut wrong = deep(4);
        wrong.now.stack_bound = Some(r.now.measured_peak - 1);
        assert!(verdict(&wrong, None).iter().any(|f| f.contains("exceeds the static bound")));
    }
}
