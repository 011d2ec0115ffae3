//! The window with the real firmware, driven like a person would through
//! egui_kittest: clicks, keys, and reading the LCD through its accessibility
//! labels. `cargo xtask test` builds the firmware and sets PRODIGY_ELF.
//! The debugger's own tests run on a small C program built with avr-gcc.

use board_sim::app::sim::SimHandle;
use board_sim::app::{Command, ProdigyApp, Speed};
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use emulator::loader::Space;
use firmware::board::Button;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const NEEDS: &str = "needs the firmware: run by cargo xtask test";

fn firmware() -> PathBuf {
    let path = std::env::var_os("PRODIGY_ELF").unwrap_or_else(|| panic!("PRODIGY_ELF is not set: these tests {NEEDS} (or set it to target/avr-none/avr/prodigy.elf)"));
    PathBuf::from(path)
}

fn harness(speed: Speed) -> Harness<'static, ProdigyApp> {
    let sim = SimHandle::start(&firmware(), 8_000_000, vec![Command::SetSpeed(speed)]).expect("the firmware loads");
    let app = ProdigyApp::new(sim);
    Harness::builder().with_size(egui::vec2(1400.0, 880.0)).build_ui_state(|ui, app: &mut ProdigyApp| app.show(ui), app)
}

/// Draws frames until `pred` holds (or panics after `secs` seconds).
fn pump(h: &mut Harness<'static, ProdigyApp>, secs: f64, what: &str, pred: impl Fn(&mut Harness<'static, ProdigyApp>) -> bool) {
    let start = Instant::now();
    loop {
        h.step();
        if pred(h) {
            return;
        }
        assert!(start.elapsed().as_secs_f64() < secs, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn lcd_line(h: &Harness<'static, ProdigyApp>, line: usize) -> String {
    let prefix = format!("LCD line {line}: ");
    let node = h.get_by_label_contains(&prefix);
    // Labels carry their text as the accessible value.
    let label = node.accesskit_node().label().or_else(|| node.value()).unwrap_or_default();
    label.strip_prefix(&prefix).unwrap_or(&label).to_string()
}

/// Boots past the splash screen (2 s) at max speed.
fn booted(speed: Speed) -> Harness<'static, ProdigyApp> {
    let mut h = harness(Speed::Max);
    pump(&mut h, 20.0, "the splash screen to pass", |h| h.state().snap.cycles > 3 * 8_000_000);
    h.state().sim.send(Command::SetSpeed(speed));
    h
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn clicking_enter_changes_the_lcd() {
    let mut h = booted(Speed::Fast);
    let before = [lcd_line(&h, 1), lcd_line(&h, 2)];
    assert!(!before[0].trim().is_empty(), "the firmware shows something: {before:?}");
    h.get_by_label("ENTER").click();
    pump(&mut h, 20.0, "the press to reach the chip", |h| h.state().snap.presses_seen[Button::Enter as usize] >= 1);
    pump(&mut h, 20.0, "the LCD to change after ENTER", |h| [lcd_line(h, 1), lcd_line(h, 2)] != before);
    let after = [lcd_line(&h, 1), lcd_line(&h, 2)];
    eprintln!("LCD before {before:?}, after {after:?}");
    // Only ENTER was pressed.
    let seen = h.state().snap.presses_seen;
    assert_eq!((seen[Button::Menu as usize], seen[Button::Up as usize], seen[Button::Down as usize]), (0, 0, 0));
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn keyboard_keys_hold_the_buttons() {
    let mut h = booted(Speed::RealTime);
    for (key, b) in [(egui::Key::M, Button::Menu), (egui::Key::ArrowUp, Button::Up), (egui::Key::ArrowDown, Button::Down), (egui::Key::Enter, Button::Enter)] {
        let seen = h.state().snap.presses_seen[b as usize];
        h.key_down(key);
        pump(&mut h, 10.0, "the key to press its button", |h| {
            let s = &h.state().snap;
            s.buttons_held[b as usize] && s.button_pins_low[b as usize] && s.presses_seen[b as usize] == seen + 1
        });
        for other in Button::ALL.into_iter().filter(|&o| o != b) {
            assert!(!h.state().snap.button_pins_low[other as usize], "{key:?} holds only {b:?}");
        }
        h.key_up(key);
        pump(&mut h, 10.0, "the key's release", |h| !h.state().snap.button_pins_low[b as usize] && !h.state().snap.buttons_held[b as usize]);
    }
}

/// The fast task's interrupt handler: TIMER0_COMPA, vector 16 in
/// `avr/iom644.h`. (By name: the lowest-addressed handler, as this once
/// took, was the UART's once that handler moved into assembly.)
fn timer_isr() -> u32 {
    let bytes = std::fs::read(firmware()).unwrap();
    let program = emulator::loader::elf::parse(&bytes).unwrap();
    let s = &program.symbols;
    let bad = s.lookup("__bad_interrupt").map(|b| b.address);
    let v = s.lookup("__vector_16").expect("the firmware has a TIMER0_COMPA handler");
    assert!(v.space == Space::Flash && Some(v.address) != bad, "TIMER0_COMPA is the default handler");
    v.address / 2
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn breakpoint_stops_then_pause_and_step_move_one_instruction() {
    let mut h = booted(Speed::RealTime);
    let isr = timer_isr();
    h.state().sim.send(Command::AddBreakpoint(isr));
    pump(&mut h, 10.0, "the breakpoint to stop the CPU", |h| !h.state().snap.running);
    let s = h.state().snap.clone();
    assert_eq!(s.pc, isr, "stopped at the breakpoint");
    assert!(s.last_stop.as_deref().unwrap_or("").contains("breakpoint"), "{:?}", s.last_stop);
    // The status bar says so.
    h.get_by_label_contains("STOPPED: breakpoint");
    // Step into: one instruction further (an ISR starts with pushes).
    let row = s.program.row(s.pc).unwrap();
    let next = s.program.listing[row + 1..]
        .iter()
        .find_map(|r| match r {
            board_sim::app::sim::ListingRow::Instr { pc, .. } => Some(*pc),
            _ => None,
        })
        .unwrap();
    h.get_by_label("Step into").click();
    pump(&mut h, 5.0, "the step", |h| h.state().snap.steps == s.steps + 1);
    let s2 = h.state().snap.clone();
    assert_eq!(s2.pc, next, "PC moved by one instruction");
    assert!(s2.cycles > s.cycles && s2.cycles - s.cycles <= 4);
    // Remove the breakpoint, run, pause from the toolbar.
    h.state().sim.send(Command::RemoveBreakpoint(isr));
    h.get_by_label("Run").click();
    pump(&mut h, 5.0, "running again", |h| h.state().snap.running);
    h.get_by_label("Pause").click();
    pump(&mut h, 5.0, "the pause", |h| !h.state().snap.running);
    let c = h.state().snap.cycles;
    std::thread::sleep(Duration::from_millis(100));
    h.step();
    assert_eq!(h.state().snap.cycles, c, "paused");
    // Pausing again and stepping moves one step at a time.
    let steps = h.state().snap.steps;
    h.get_by_label("Step into").click();
    pump(&mut h, 5.0, "another step", |h| h.state().snap.steps == steps + 1);
}

/// A loop bumping a counter: registers and SRAM change at every step.
/// In a scratch directory that goes when dropped.
fn loop_program() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix("board-sim-app-ui-").tempdir().unwrap();
    let (src, elf) = (dir.path().join("loop.c"), dir.path().join("loop.elf"));
    std::fs::write(&src, "volatile unsigned char counter;\nint main(void) { for (;;) { counter++; } }\n").unwrap();
    let status = std::process::Command::new("avr-gcc")
        .args(["-mmcu=atmega644", "-Os", "-o"])
        .arg(&elf)
        .arg(&src)
        .status()
        .expect("avr-gcc runs (cargo xtask setup installs gcc-avr)");
    assert!(status.success(), "avr-gcc failed");
    (dir, elf)
}

/// PC as the debugger's register view shows it.
fn has_pc_label(h: &Harness<'static, ProdigyApp>, pc: u32) -> bool {
    h.query_all_by_label(&format!("0x{:04x}", pc * 2)).next().is_some()
}

#[test]
fn debugger_views_refresh_after_each_step_while_paused() {
    let (_dir, elf) = loop_program();
    let sim = SimHandle::start(&elf, 8_000_000, vec![Command::SetSpeed(Speed::RealTime)]).expect("the program loads");
    let app = ProdigyApp::new(sim);
    assert!(app.ui.show_debugger);
    let mut h = Harness::builder().with_size(egui::vec2(1400.0, 880.0)).build_ui_state(|ui, app: &mut ProdigyApp| app.show(ui), app);
    pump(&mut h, 10.0, "the program to run", |h| h.state().snap.cycles > 100_000);
    h.get_by_label("Pause").click();
    pump(&mut h, 5.0, "the pause", |h| !h.state().snap.running);
    let mut s = h.state().snap.clone();
    assert!(has_pc_label(&h, s.pc), "the registers show PC 0x{:04x}", s.pc * 2);
    let mut pcs = vec![s.pc];
    for _ in 0..4 {
        h.get_by_label("Step into").click();
        pump(&mut h, 5.0, "the step", |h| h.state().snap.steps == s.steps + 1);
        let s2 = h.state().snap.clone();
        assert!(s2.cycles > s.cycles && !s2.running);
        // The frame that showed the step shows the new state.
        assert!(has_pc_label(&h, s2.pc), "after the step the registers show PC 0x{:04x}", s2.pc * 2);
        pcs.push(s2.pc);
        s = s2;
    }
    pcs.dedup();
    assert!(pcs.len() > 2, "the steps moved PC: {pcs:?}");
}
