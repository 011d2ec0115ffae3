//! The window's emulator side without a window: `SimCore` (commands and
//! snapshots) and the `SimHandle` thread, on a small C program built with
//! avr-gcc (a build dependency of the project).

use board_sim::app::sim::{ListingRow, SimCore, SimHandle, WakePacer, MIN_PRESS_MS};
use board_sim::app::{Command, Speed, Wake};
use emulator::cpu::decode::Instr;
use emulator::debug::WatchKind;
use emulator::loader::Space;
use firmware::board::Button;
use std::path::PathBuf;
use std::process::Command as Proc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tempfile::TempDir;

const CLOCK: u32 = 8_000_000;

/// A loop calling a function that bumps a counter; the button pins have
/// their pull-ups on, as in the firmware.
const PROGRAM: &str = r#"
#include <avr/io.h>
volatile unsigned char counter;
volatile unsigned char table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__attribute__((noinline)) void bump(void) { counter++; }
int main(void) {
    PORTA = 0x0F;
    for (;;) { bump(); }
}
"#;

/// The program's ELF, in a scratch directory that goes when dropped.
fn build(name: &str) -> (TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix(&format!("board-sim-app-{name}-")).tempdir().unwrap();
    let src = dir.path().join("prog.c");
    let elf = dir.path().join("prog.elf");
    std::fs::write(&src, PROGRAM).unwrap();
    let status = Proc::new("avr-gcc")
        .args(["-mmcu=atmega644", "-Os", "-g", "-o"])
        .arg(&elf)
        .arg(&src)
        .status()
        .expect("avr-gcc runs (cargo xtask setup installs gcc-avr)");
    assert!(status.success(), "avr-gcc failed");
    (dir, elf)
}

fn core(name: &str) -> SimCore {
    // The core reads the ELF once, on loading.
    let mut c = SimCore::load(&build(name).1, CLOCK).unwrap();
    c.handle(Command::SetSpeed(Speed::Max));
    c
}

fn byte_addr(c: &SimCore, name: &str) -> u32 {
    c.board().program.symbols.lookup(name).unwrap_or_else(|| panic!("symbol {name}")).address
}

#[test]
fn load_builds_listing_symbols_and_regions() {
    let c = core("load");
    let s = c.snapshot(0.0, 0.0);
    let p = &s.program;
    let bump = byte_addr(&c, "bump");
    assert!(p.listing.iter().any(|r| matches!(r, ListingRow::Label { name, pc } if name == "bump" && *pc * 2 == bump)));
    let row = p.row(bump / 2).expect("bump has a row");
    assert!(matches!(&p.listing[row], ListingRow::Instr { pc, .. } if *pc * 2 == bump));
    assert_eq!(p.resolve("bump", Space::Flash), Some(bump));
    assert_eq!(p.resolve("0x10", Space::Flash), Some(0x10));
    let counter = p.data_symbol("counter").expect("counter");
    assert_eq!(counter.size, 1);
    assert!(p.data_sections.iter().any(|(n, _, _)| n == ".data"));
    assert!(p.static_end.is_some());
    assert_eq!(p.chess_position, None);
    assert_eq!(s.sram.len(), 0x1100);
    assert_eq!(s.eeprom.len(), 2048);
    assert_eq!(s.lcd_pixels.len(), 32);
    assert!(s.running && s.powered);
}

#[test]
fn step_into_moves_pc_by_one_instruction() {
    let mut c = core("step");
    c.run_slice(10_000);
    c.handle(Command::Pause);
    assert!(!c.is_running());
    for _ in 0..50 {
        let before = c.snapshot(0.0, 0.0);
        let instr = c.board().avr.instruction(before.pc);
        c.handle(Command::StepInto);
        let after = c.snapshot(0.0, 0.0);
        assert!(!after.running);
        assert_eq!(after.steps, before.steps + 1);
        let dc = after.cycles - before.cycles;
        assert!((1..=5).contains(&dc), "one instruction takes 1..=5 cycles, took {dc}");
        let flow = matches!(
            instr,
            Instr::Rjmp { .. } | Instr::Rcall { .. } | Instr::Jmp { .. } | Instr::Call { .. } | Instr::Ret | Instr::Reti | Instr::Brbs { .. } | Instr::Brbc { .. }
        ) || format!("{instr:?}").starts_with("Sb") || format!("{instr:?}").starts_with("Cpse") || format!("{instr:?}").contains("jmp") || format!("{instr:?}").contains("call");
        if !flow {
            assert_eq!(after.pc, before.pc + instr.words(), "{instr:?}");
        }
    }
}

#[test]
fn breakpoint_stops_and_step_out_returns_to_the_caller() {
    let mut c = core("bp");
    let bump = byte_addr(&c, "bump") / 2;
    c.handle(Command::AddBreakpoint(bump));
    c.run_slice(1_000_000);
    let s = c.snapshot(0.0, 0.0);
    assert!(!s.running, "the breakpoint stops the run");
    assert_eq!(s.pc, bump);
    assert!(s.last_stop.as_deref().unwrap().contains("breakpoint"), "{:?}", s.last_stop);
    assert_eq!(s.breakpoints, vec![bump]);
    // Running again leaves the breakpoint and comes back to it.
    c.handle(Command::Run);
    c.run_slice(1_000_000);
    assert_eq!(c.snapshot(0.0, 0.0).pc, bump);
    // Step out: back in main, right after the call.
    let sp_inside = c.snapshot(0.0, 0.0).sp;
    c.handle(Command::StepOut);
    c.run_slice(1_000_000);
    let s = c.snapshot(0.0, 0.0);
    assert!(!s.running);
    assert_eq!(s.sp, sp_inside + 2, "the return address was popped");
    let (f, _) = s.program.function_at(s.pc * 2).unwrap();
    assert_eq!(f, "main");
    c.handle(Command::RemoveBreakpoint(bump));
    assert!(c.snapshot(0.0, 0.0).breakpoints.is_empty());
}

#[test]
fn step_over_a_call_and_run_to_cursor() {
    let mut c = core("over");
    let bump = byte_addr(&c, "bump") / 2;
    // Find the call to bump in main.
    let p = c.snapshot(0.0, 0.0).program.clone();
    let call = p
        .listing
        .iter()
        .find_map(|r| match r {
            ListingRow::Instr { pc, text, .. } if (text.starts_with("rcall") || text.starts_with("call")) && text.contains("<bump>") => Some(*pc),
            _ => None,
        })
        .expect("main calls bump");
    c.handle(Command::RunTo(call));
    c.run_slice(1_000_000);
    let s = c.snapshot(0.0, 0.0);
    assert!(!s.running);
    assert_eq!(s.pc, call);
    assert!(s.breakpoints.is_empty(), "the cursor's breakpoint is temporary");
    let counter = byte_addr(&c, "counter") as usize;
    let before = s.sram[counter];
    let words = c.board().avr.instruction(call).words();
    c.handle(Command::StepOver);
    c.run_slice(1_000_000);
    let s = c.snapshot(0.0, 0.0);
    assert!(!s.running);
    assert_eq!(s.pc, call + words, "stopped after the call");
    assert_eq!(s.sram[counter], before.wrapping_add(1), "bump ran");
    assert_ne!(s.pc, bump);
}

#[test]
fn watchpoint_stops_on_write() {
    let mut c = core("watch");
    let counter = byte_addr(&c, "counter") as u16;
    c.handle(Command::AddWatchpoint(counter..=counter, WatchKind::Write));
    c.run_slice(1_000_000);
    let s = c.snapshot(0.0, 0.0);
    assert!(!s.running);
    assert!(s.last_stop.as_deref().unwrap().contains("watchpoint"), "{:?}", s.last_stop);
    assert_eq!(s.watchpoints.len(), 1);
    c.handle(Command::RemoveWatchpoint(counter..=counter, WatchKind::Write));
    c.handle(Command::Run);
    c.run_slice(100_000);
    assert!(c.is_running());
}

#[test]
fn a_quick_click_is_stretched_so_the_chip_sees_it() {
    let mut c = core("press");
    c.run_slice(1000);
    c.handle(Command::Press(Button::Enter));
    c.handle(Command::Release(Button::Enter));
    let s = c.snapshot(0.0, 0.0);
    assert!(s.button_pins_low[Button::Enter as usize], "pressed now");
    assert_eq!(s.presses_seen[Button::Enter as usize], 1);
    c.run_slice(MIN_PRESS_MS * CLOCK as u64 / 1000 / 2);
    assert!(c.snapshot(0.0, 0.0).button_pins_low[Button::Enter as usize], "still held halfway");
    c.run_slice(MIN_PRESS_MS * CLOCK as u64 / 1000);
    let s = c.snapshot(0.0, 0.0);
    assert!(!s.button_pins_low[Button::Enter as usize], "released after the minimum press");
    assert!(!s.buttons_held[Button::Enter as usize]);
    assert!(!s.button_pins_low[Button::Menu as usize]);
}

#[test]
fn power_cycle_and_reset() {
    let mut c = core("power");
    c.run_slice(100_000);
    c.handle(Command::Power(false));
    let s = c.snapshot(0.0, 0.0);
    assert!(!s.powered && !s.running && !s.backlight);
    let cycles = s.cycles;
    c.run_slice(100_000);
    assert_eq!(c.cycles(), cycles, "nothing runs while off");
    c.handle(Command::Power(true));
    let s = c.snapshot(0.0, 0.0);
    assert!(s.powered && s.running);
    assert_eq!(s.cycles, 0, "a cold start");
    c.run_slice(100_000);
    c.handle(Command::Reset);
    assert_eq!(c.board().avr.pc(), 0);
}

#[test]
fn load_errors_are_reported_in_the_snapshot() {
    let mut c = core("loaderr");
    c.handle(Command::Load(PathBuf::from("/nonexistent/x.elf")));
    let e = c.snapshot(0.0, 0.0).error.expect("an error");
    assert!(e.contains("cannot read"), "{e}");
    assert!(!e.contains('\n'));
    let (_dir, elf) = build("loadok");
    c.handle(Command::Load(elf.clone()));
    let s = c.snapshot(0.0, 0.0);
    assert_eq!(s.error, None);
    assert_eq!(s.program.path, elf);
}

#[test]
fn the_thread_runs_pauses_and_publishes() {
    let (_dir, elf) = build("thread");
    let sim = SimHandle::start(&elf, CLOCK, vec![Command::SetSpeed(Speed::Max)]).unwrap();
    let s = sim.wait_for(Duration::from_secs(10), |s| s.cycles > 5_000_000).expect("runs at max speed");
    assert!(s.running);
    sim.send(Command::Pause);
    let s = sim.wait_for(Duration::from_secs(5), |s| !s.running).expect("pauses");
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(sim.snapshot().cycles, s.cycles, "paused means paused");
    sim.send(Command::StepInto);
    let s2 = sim.wait_for(Duration::from_secs(5), |x| x.steps == s.steps + 1).expect("steps");
    assert!(s2.cycles > s.cycles);
    // Real time: about 8 M cycles per second.
    sim.send(Command::SetSpeed(Speed::RealTime));
    sim.send(Command::Run);
    let start = sim.wait_for(Duration::from_secs(5), |x| x.running).unwrap().cycles;
    std::thread::sleep(Duration::from_millis(500));
    let ran = sim.snapshot().cycles - start;
    assert!((2_000_000..=8_000_000).contains(&ran), "{ran} cycles in 0.5 s at 1x");
    assert!(SimHandle::start(&PathBuf::from("/nonexistent.elf"), CLOCK, vec![]).is_err());
}

#[test]
fn the_window_is_woken_for_changes_that_last_not_for_flicker() {
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let settle = Duration::from_millis(50);
    let mut p = WakePacer::default();
    assert_eq!(p.wake(at(0), 1, settle, true), Some(Wake::Now), "a command, a start or a stop: at once");
    assert_eq!(p.wake(at(16), 1, settle, false), None, "nothing new on the board");
    // A change is drawn once it has lasted `settle`, with what changed meanwhile.
    assert_eq!(p.wake(at(33), 2, settle, false), None);
    assert_eq!(p.wake(at(50), 3, settle, false), None);
    assert_eq!(p.wake(at(83), 3, settle, false), Some(Wake::Look));
    assert_eq!(p.wake(at(100), 3, settle, false), None, "already shown");
    // A flicker undone before then is not drawn.
    assert_eq!(p.wake(at(116), 4, settle, false), None);
    assert_eq!(p.wake(at(133), 3, settle, false), None);
    assert_eq!(p.wake(at(300), 3, settle, false), None);
    // Nor does it delay the next change.
    assert_eq!(p.wake(at(316), 5, settle, false), None);
    assert_eq!(p.wake(at(366), 5, settle, false), Some(Wake::Look));
    assert_eq!(p.wake(at(367), 5, settle, true), Some(Wake::Now));
}

#[test]
fn the_thread_wakes_the_window_on_a_pause_and_a_step_but_not_for_counters() {
    let (_dir, elf) = build("wake");
    let sim = SimHandle::start(&elf, CLOCK, vec![Command::SetSpeed(Speed::RealTime)]).unwrap();
    let wakes = Arc::new(Mutex::new(Vec::new()));
    let w = wakes.clone();
    sim.set_repaint(move |wake| w.lock().unwrap().push(wake));
    std::thread::sleep(Duration::from_millis(100));
    wakes.lock().unwrap().clear();
    // Running: the program's registers and SRAM change all the time, the
    // board's LCD, buzzer and buttons do not.
    let c0 = sim.snapshot().cycles;
    std::thread::sleep(Duration::from_millis(400));
    assert!(sim.snapshot().cycles > c0 + 1_000_000, "runs");
    assert_eq!(*wakes.lock().unwrap(), vec![], "counters alone wake nobody");
    sim.send(Command::Pause);
    let s = sim.wait_for(Duration::from_secs(5), |s| !s.running).expect("pauses");
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(wakes.lock().unwrap().last(), Some(&Wake::Now), "the pause is drawn at once");
    wakes.lock().unwrap().clear();
    sim.send(Command::StepInto);
    sim.wait_for(Duration::from_secs(5), |x| x.steps == s.steps + 1).expect("steps");
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(*wakes.lock().unwrap(), vec![Wake::Now], "the step is drawn at once");
}
