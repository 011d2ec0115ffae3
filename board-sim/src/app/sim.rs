//! The emulator behind the window: a [`SimCore`] (plain state, no threads,
//! unit-testable) and a [`SimHandle`] that runs it on its own thread.
//!
//! The UI never touches the [`Board`]: it sends [`Command`]s and draws the
//! latest [`Snapshot`] the thread published. The thread paces emulated time
//! against the wall clock (1x, 10x) or runs flat out (max), and publishes a
//! snapshot at most [`PUBLISH_HZ`] times a second, so the window costs the
//! emulator almost nothing.

use crate::board::Board;
use crate::headless::describe_stop;
use emulator::cpu::decode::Instr;
use emulator::debug::{WatchKind, Watchpoint};
use emulator::device::{DATA_SIZE, RAMEND, RAMSTART};
use emulator::loader::{Space, SymbolKind};
use emulator::periph::Eeprom;
use emulator::Stop;
use firmware::board::Button;
use std::collections::{BTreeSet, VecDeque};
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Snapshots published per second at most (the window draws at <= 30 fps).
pub const PUBLISH_HZ: f64 = 60.0;
/// A click shorter than this (emulated) is stretched, so that the
/// firmware's debounce (two 25 ms samples) always sees it.
pub const MIN_PRESS_MS: u64 = 120;
/// Warnings kept for display (older ones are only counted).
const KEEP_WARNINGS: usize = 500;
/// The symbol the firmware exports its chess position under.
pub const CHESS_POSITION: &str = "CHESS_POSITION";

/// How fast emulated time runs while running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speed {
    /// Emulated time follows the wall clock.
    RealTime,
    /// Ten times real time.
    Fast,
    /// As fast as the host can.
    Max,
}

impl Speed {
    pub fn factor(self) -> Option<f64> {
        match self {
            Speed::RealTime => Some(1.0),
            Speed::Fast => Some(10.0),
            Speed::Max => None,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Speed::RealTime => "1x",
            Speed::Fast => "10x",
            Speed::Max => "max",
        }
    }
}

/// What the UI asks of the emulator.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Press(Button),
    Release(Button),
    Run,
    Pause,
    SetSpeed(Speed),
    StepInto,
    StepOver,
    StepOut,
    /// Run until PC reaches this word address.
    RunTo(u32),
    /// The RESET pin: the chip restarts, the LCD keeps its state.
    Reset,
    /// Power switch: off blanks everything; on is a cold start (EEPROM kept).
    Power(bool),
    Load(PathBuf),
    /// Word address.
    AddBreakpoint(u32),
    RemoveBreakpoint(u32),
    ClearBreakpoints,
    AddWatchpoint(RangeInclusive<u16>, WatchKind),
    RemoveWatchpoint(RangeInclusive<u16>, WatchKind),
    ClearWarnings,
    Quit,
}

/// One row of the disassembly listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListingRow {
    /// A function (or other flash symbol) starts at the next instruction.
    Label { pc: u32, name: String },
    Instr { pc: u32, words: u32, text: String },
}

/// A data-space symbol, demangled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataSymbol {
    pub name: String,
    pub address: u16,
    pub size: u16,
}

/// Everything about the loaded program that only changes on load.
#[derive(Debug, Default)]
pub struct ProgramInfo {
    pub path: PathBuf,
    pub listing: Vec<ListingRow>,
    /// Flash word address -> index of its `Instr` row in `listing`.
    pub row_of_pc: Vec<u32>,
    /// Flash functions (byte address, demangled name), sorted by address.
    pub functions: Vec<(u32, String)>,
    pub data_symbols: Vec<DataSymbol>,
    /// `.data`, `.bss`, `.noinit`... as (name, start, end exclusive).
    pub data_sections: Vec<(String, u16, u16)>,
    /// First address above static data (where the stack must stop).
    pub static_end: Option<u16>,
    /// Address of `CHESS_POSITION` in SRAM, if the firmware exports it.
    pub chess_position: Option<u16>,
    pub flash_bytes: usize,
}

impl ProgramInfo {
    pub fn from_board(path: &Path, board: &Board) -> ProgramInfo {
        let symbols = &board.program.symbols;
        // Demangled copy for the disassembler's comments.
        let mut pretty = symbols.clone();
        for s in &mut pretty.symbols {
            s.name = demangle(&s.name);
        }
        let text_end = symbols
            .sections
            .iter()
            .filter(|s| s.space == Space::Flash && s.name == ".text")
            .map(|s| s.end())
            .max()
            .unwrap_or(board.program.flash.len() as u32)
            .min(emulator::device::FLASH_BYTES as u32);
        let mut functions: Vec<(u32, String)> = pretty
            .symbols
            .iter()
            .filter(|s| s.space == Space::Flash && s.kind == SymbolKind::Function)
            .map(|s| (s.address, s.name.clone()))
            .collect();
        functions.sort();
        functions.dedup_by_key(|f| f.0);
        let mut listing = Vec::new();
        let mut row_of_pc = vec![u32::MAX; emulator::device::FLASH_WORDS];
        let mut pc = 0u32;
        let mut fi = 0;
        while pc * 2 < text_end {
            while fi < functions.len() && functions[fi].0 < pc * 2 {
                fi += 1;
            }
            if fi < functions.len() && functions[fi].0 == pc * 2 {
                listing.push(ListingRow::Label { pc, name: functions[fi].1.clone() });
            }
            let instr = board.avr.instruction(pc);
            let words = instr.words();
            let text = emulator::disasm::disassemble(board.avr.flash_word(pc), board.avr.flash_word(pc + 1), pc, Some(&pretty));
            for w in 0..words {
                if let Some(slot) = row_of_pc.get_mut((pc + w) as usize) {
                    *slot = listing.len() as u32;
                }
            }
            listing.push(ListingRow::Instr { pc, words, text });
            pc += words;
        }
        let mut data_symbols: Vec<DataSymbol> = pretty
            .symbols
            .iter()
            .filter(|s| s.space == Space::Data && s.kind == SymbolKind::Object && s.address >= RAMSTART as u32)
            .map(|s| DataSymbol { name: s.name.clone(), address: s.address as u16, size: s.size as u16 })
            .collect();
        data_symbols.sort_by_key(|s| (s.address, s.name.clone()));
        let data_sections = symbols
            .sections
            .iter()
            .filter(|s| s.space == Space::Data && s.size > 0)
            .map(|s| (s.name.clone(), s.start as u16, s.end().min(DATA_SIZE as u32) as u16))
            .collect();
        let chess_position = symbols.lookup(CHESS_POSITION).filter(|s| s.space == Space::Data).map(|s| s.address as u16);
        ProgramInfo {
            path: path.to_path_buf(),
            listing,
            row_of_pc,
            functions,
            data_symbols,
            data_sections,
            static_end: board.program.static_data_end(),
            chess_position,
            flash_bytes: text_end as usize,
        }
    }

    /// The listing row of the instruction at word address `pc`.
    pub fn row(&self, pc: u32) -> Option<usize> {
        self.row_of_pc.get(pc as usize).filter(|&&r| r != u32::MAX).map(|&r| r as usize)
    }

    /// The function containing byte address `addr`, with the offset.
    pub fn function_at(&self, byte_addr: u32) -> Option<(&str, u32)> {
        let i = self.functions.partition_point(|f| f.0 <= byte_addr);
        (i > 0).then(|| (self.functions[i - 1].1.as_str(), byte_addr - self.functions[i - 1].0))
    }

    /// `name+0x12` for a data address.
    pub fn data_label(&self, addr: u16) -> Option<String> {
        self.data_symbols.iter().rev().find(|s| addr >= s.address && (addr as u32) < s.address as u32 + s.size.max(1) as u32).map(|s| {
            if addr == s.address {
                s.name.clone()
            } else {
                format!("{}+{}", s.name, addr - s.address)
            }
        })
    }

    /// Parses an address: `0x1234`, `1234` (hex), or a (demangled or raw)
    /// symbol name. Flash symbols give byte addresses.
    pub fn resolve(&self, text: &str, space: Space) -> Option<u32> {
        let t = text.trim();
        let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
        if let Ok(v) = u32::from_str_radix(hex, 16) {
            return Some(v);
        }
        match space {
            Space::Flash => {
                self.functions.iter().find(|f| f.1 == t).or_else(|| self.functions.iter().find(|f| f.1.ends_with(&format!("::{t}")))).map(|f| f.0)
            }
            _ => self
                .data_symbols
                .iter()
                .find(|s| s.name == t)
                .or_else(|| self.data_symbols.iter().find(|s| s.name.ends_with(&format!("::{t}"))))
                .map(|s| s.address as u32),
        }
    }

    /// The data symbol called `text` (for watchpoints over a whole object).
    pub fn data_symbol(&self, text: &str) -> Option<&DataSymbol> {
        let t = text.trim();
        self.data_symbols.iter().find(|s| s.name == t).or_else(|| self.data_symbols.iter().find(|s| s.name.ends_with(&format!("::{t}"))))
    }
}

/// Rust symbol names as people read them (`prodigy::hw::serial::RX`).
pub fn demangle(name: &str) -> String {
    format!("{:#}", rustc_demangle::demangle(name))
}

/// Everything the window draws, as of one moment.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Bumped on every publish.
    pub seq: u64,
    pub program: Arc<ProgramInfo>,
    pub powered: bool,
    pub running: bool,
    pub speed: Speed,
    /// What a running step-over/step-out/run-to is waiting for.
    pub goal: Option<String>,
    pub clock_hz: u32,
    pub cycles: u64,
    /// Emulated MHz over the last half second of wall time.
    pub mhz: f64,
    /// Emulated seconds per wall second.
    pub realtime: f64,
    /// Word address.
    pub pc: u32,
    pub sp: u16,
    pub min_sp: u16,
    pub sreg: u8,
    pub regs: [u8; 32],
    pub sleeping: bool,
    /// The whole data space 0..=RAMEND (registers, I/O, SRAM).
    pub sram: Vec<u8>,
    pub eeprom: Vec<u8>,
    pub lcd_pixels: Vec<[[bool; 5]; 8]>,
    pub lcd_text: [String; 2],
    pub backlight: bool,
    pub display_on: bool,
    pub tone: Option<f32>,
    /// Per button (Button order): the user holds it.
    pub buttons_held: [bool; 4],
    /// Per button: the chip's pin reads low (the press reached the chip).
    pub button_pins_low: [bool; 4],
    /// Presses that reached the chip's pins since load (for tests and the UI).
    pub presses_seen: [u32; 4],
    pub breakpoints: Vec<u32>,
    pub watchpoints: Vec<Watchpoint>,
    pub warnings: Vec<String>,
    pub warning_count: u64,
    pub lcd_warnings: Vec<String>,
    pub lcd_warning_count: u64,
    /// Why the CPU last stopped by itself (breakpoint, fault...).
    pub last_stop: Option<String>,
    /// The last failed command (load error...).
    pub error: Option<String>,
    /// Completed single steps (step into, and step over of a non-call).
    pub steps: u64,
    /// A hash of what a person watching the board would see change (LCD
    /// dots, backlight, buzzer, button pins, run state): while running,
    /// the emulator thread wakes the window when it changes ([`WakePacer`]).
    pub visual: u64,
}

impl Snapshot {
    pub fn seconds(&self) -> f64 {
        self.cycles as f64 / self.clock_hz as f64
    }

    pub fn static_end(&self) -> u16 {
        self.program.static_end.unwrap_or(RAMSTART)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Goal {
    /// Run until PC is `pc` with SP >= `sp_min` (a step over a call returns
    /// to the same frame; a recursive call of it does not count).
    Until { pc: u32, sp_min: u16, temp_bp: bool, what: GoalKind },
    /// Step until a RET lifts SP above `sp0`.
    StepOut { sp0: u16 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GoalKind {
    StepOver,
    RunTo,
}

/// The emulator and its debugger state, without threads.
pub struct SimCore {
    board: Board,
    elf: Vec<u8>,
    program: Arc<ProgramInfo>,
    clock_hz: u32,
    powered: bool,
    running: bool,
    speed: Speed,
    goal: Option<Goal>,
    breakpoints: BTreeSet<u32>,
    watchpoints: Vec<Watchpoint>,
    warnings: VecDeque<String>,
    warning_count: u64,
    lcd_warnings: VecDeque<String>,
    lcd_warning_count: u64,
    last_stop: Option<String>,
    error: Option<String>,
    pressed_at: [Option<u64>; 4],
    presses_seen: [u32; 4],
    pin_was_low: [bool; 4],
    steps: u64,
    seq: u64,
    /// (wall, cycles) samples for the MHz meter.
    rate: VecDeque<(Instant, u64)>,
}

impl SimCore {
    pub fn load(path: &Path, clock_hz: u32) -> Result<SimCore, String> {
        let elf = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let board = Board::from_elf(&elf, clock_hz).map_err(|e| format!("{}: {e}", path.display()))?;
        let program = Arc::new(ProgramInfo::from_board(path, &board));
        Ok(SimCore {
            board,
            elf,
            program,
            clock_hz,
            powered: true,
            running: true,
            speed: Speed::RealTime,
            goal: None,
            breakpoints: BTreeSet::new(),
            watchpoints: Vec::new(),
            warnings: VecDeque::new(),
            warning_count: 0,
            lcd_warnings: VecDeque::new(),
            lcd_warning_count: 0,
            last_stop: None,
            error: None,
            pressed_at: [None; 4],
            presses_seen: [0; 4],
            pin_was_low: [false; 4],
            steps: 0,
            seq: 0,
            rate: VecDeque::new(),
        })
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn is_running(&self) -> bool {
        self.running && self.powered
    }

    pub fn speed(&self) -> Speed {
        self.speed
    }

    pub fn cycles(&self) -> u64 {
        self.board.avr.cycles()
    }

    pub fn clock_hz(&self) -> u32 {
        self.clock_hz
    }

    /// Applies one command. Returns false for [`Command::Quit`].
    pub fn handle(&mut self, cmd: Command) -> bool {
        self.error = None;
        match cmd {
            Command::Press(b) => {
                if self.powered && self.pressed_at[b as usize].is_none() {
                    self.pressed_at[b as usize] = Some(self.cycles());
                    self.board.press(b);
                    self.note_pins();
                }
            }
            Command::Release(b) => {
                if let Some(at) = self.pressed_at[b as usize].take() {
                    let earliest = at + MIN_PRESS_MS * self.clock_hz as u64 / 1000;
                    if earliest <= self.cycles() {
                        self.board.release(b);
                    } else {
                        // Too short a click: the release happens later, at
                        // its exact cycle, while the emulator runs.
                        self.board.buttons.release(b, earliest);
                    }
                }
            }
            Command::Run => {
                if self.powered {
                    self.running = true;
                    self.last_stop = None;
                }
            }
            Command::Pause => self.pause(None),
            Command::SetSpeed(s) => self.speed = s,
            Command::StepInto => self.step_into(),
            Command::StepOver => self.step_over(),
            Command::StepOut => {
                if self.powered {
                    self.end_goal();
                    self.goal = Some(Goal::StepOut { sp0: self.board.avr.sp() });
                    self.running = true;
                    self.last_stop = None;
                }
            }
            Command::RunTo(pc) => {
                if self.powered {
                    self.start_until(pc, 0, GoalKind::RunTo);
                }
            }
            Command::Reset => {
                if self.powered {
                    self.end_goal();
                    self.board.avr.reset();
                    self.last_stop = None;
                }
            }
            Command::Power(on) => {
                if on && !self.powered {
                    let eeprom = self.eeprom().to_vec();
                    match self.fresh_board(&self.elf.clone()) {
                        Ok(mut b) => {
                            if let Some(e) = b.avr.peripheral_mut::<Eeprom>() {
                                let _ = e.load(&eeprom);
                            }
                            self.install(b, None);
                            self.powered = true;
                            self.running = true;
                        }
                        Err(e) => self.error = Some(e),
                    }
                } else if !on && self.powered {
                    self.end_goal();
                    self.powered = false;
                    self.running = false;
                }
            }
            Command::Load(path) => match std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display())) {
                Ok(bytes) => match self.fresh_board(&bytes).map_err(|e| format!("{}: {e}", path.display())) {
                    Ok(b) => {
                        self.elf = bytes;
                        self.install(b, Some(&path));
                        self.powered = true;
                        self.running = true;
                    }
                    Err(e) => self.error = Some(e),
                },
                Err(e) => self.error = Some(e),
            },
            Command::AddBreakpoint(pc) => {
                self.breakpoints.insert(pc);
                self.board.avr.add_breakpoint(pc);
            }
            Command::RemoveBreakpoint(pc) => {
                self.breakpoints.remove(&pc);
                let temp = matches!(self.goal, Some(Goal::Until { pc: p, .. }) if p == pc);
                if !temp {
                    self.board.avr.remove_breakpoint(pc);
                }
            }
            Command::ClearBreakpoints => {
                for pc in std::mem::take(&mut self.breakpoints) {
                    self.board.avr.remove_breakpoint(pc);
                }
                if let Some(Goal::Until { pc, .. }) = self.goal {
                    self.board.avr.add_breakpoint(pc);
                }
            }
            Command::AddWatchpoint(range, kind) => {
                let wp = Watchpoint { range: range.clone(), kind };
                if !self.watchpoints.contains(&wp) {
                    self.watchpoints.push(wp);
                    self.board.avr.add_watchpoint(range, kind);
                }
            }
            Command::RemoveWatchpoint(range, kind) => {
                self.watchpoints.retain(|w| !(w.range == range && w.kind == kind));
                self.board.avr.remove_watchpoint(range, kind);
            }
            Command::ClearWarnings => {
                self.warnings.clear();
                self.warning_count = 0;
                self.lcd_warnings.clear();
                self.lcd_warning_count = 0;
            }
            Command::Quit => return false,
        }
        self.seq += 1;
        true
    }

    fn fresh_board(&self, elf: &[u8]) -> Result<Board, String> {
        Board::from_elf(elf, self.clock_hz)
    }

    /// Puts a new board in place, keeping breakpoints and watchpoints.
    fn install(&mut self, mut board: Board, path: Option<&Path>) {
        self.end_goal();
        for &pc in &self.breakpoints {
            board.avr.add_breakpoint(pc);
        }
        for w in &self.watchpoints {
            board.avr.add_watchpoint(w.range.clone(), w.kind);
        }
        if path.is_some() || board.program != self.board.program {
            let path = path.map(Path::to_path_buf).unwrap_or_else(|| self.program.path.clone());
            self.program = Arc::new(ProgramInfo::from_board(&path, &board));
        }
        self.board = board;
        self.pressed_at = [None; 4];
        self.pin_was_low = [false; 4];
        self.last_stop = None;
        self.rate.clear();
    }

    fn eeprom(&self) -> &[u8] {
        self.board.avr.peripheral::<Eeprom>().map(|e| &e.contents()[..]).unwrap_or(&[])
    }

    fn pause(&mut self, why: Option<String>) {
        self.end_goal();
        self.running = false;
        if why.is_some() {
            self.last_stop = why;
        }
        self.seq += 1;
    }

    fn end_goal(&mut self) {
        if let Some(Goal::Until { pc, temp_bp: true, .. }) = self.goal {
            self.board.avr.remove_breakpoint(pc);
        }
        self.goal = None;
    }

    fn step_into(&mut self) {
        if !self.powered {
            return;
        }
        self.end_goal();
        self.running = false;
        let stop = self.board.step();
        self.steps += 1;
        self.note_pins();
        self.last_stop = match stop {
            Stop::Stepped | Stop::CycleLimit => None,
            other => Some(describe_stop(&other)),
        };
    }

    fn step_over(&mut self) {
        if !self.powered {
            return;
        }
        let avr = &self.board.avr;
        let pc = avr.pc();
        let instr = avr.instruction(pc);
        if matches!(instr, Instr::Call { .. } | Instr::Rcall { .. } | Instr::Icall) && !avr.is_sleeping() {
            // The return address goes on the stack: SP is 2 lower inside.
            self.start_until(pc + instr.words(), avr.sp(), GoalKind::StepOver);
        } else {
            self.step_into();
        }
    }

    fn start_until(&mut self, pc: u32, sp_min: u16, what: GoalKind) {
        self.end_goal();
        let temp_bp = self.board.avr.add_breakpoint(pc);
        self.goal = Some(Goal::Until { pc, sp_min, temp_bp, what });
        self.running = true;
        self.last_stop = None;
    }

    /// Runs at most `budget` cycles (less if something stops the CPU).
    pub fn run_slice(&mut self, budget: u64) {
        if !self.is_running() || budget == 0 {
            return;
        }
        let end = self.cycles().saturating_add(budget);
        if let Some(Goal::StepOut { sp0 }) = self.goal {
            self.step_out_until(sp0, end);
        } else {
            while self.is_running() && self.cycles() < end {
                let stop = self.board.run_until(end);
                self.after_stop(stop);
            }
        }
        self.collect_warnings();
        self.note_pins();
    }

    fn after_stop(&mut self, stop: Stop) {
        match stop {
            Stop::CycleLimit | Stop::PinChange | Stop::Stepped => {}
            Stop::Sleeping { interrupts_enabled: true, .. } => {
                // Only a pin change can wake the chip: let time pass.
                let now = self.cycles();
                let next = self.board.buttons.next_change(now).unwrap_or(now + self.clock_hz as u64 / 100);
                self.board.avr.skip_to(next);
            }
            Stop::Breakpoint(pc) => {
                if let Some(Goal::Until { pc: target, sp_min, what, .. }) = self.goal {
                    if pc == target {
                        if self.board.avr.sp() >= sp_min {
                            let msg = match what {
                                GoalKind::StepOver => {
                                    self.steps += 1;
                                    None
                                }
                                GoalKind::RunTo => Some(format!("reached 0x{:04x}", pc * 2)),
                            };
                            self.pause(msg);
                        }
                        // Else a deeper (recursive) frame: keep going.
                        return;
                    }
                }
                self.pause(Some(describe_stop(&stop)));
            }
            other => self.pause(Some(describe_stop(&other))),
        }
    }

    fn step_out_until(&mut self, sp0: u16, end: u64) {
        while self.cycles() < end {
            let pc = self.board.avr.pc();
            let is_ret = matches!(self.board.avr.instruction(pc), Instr::Ret) && !self.board.avr.is_sleeping();
            let stop = self.board.step();
            match stop {
                Stop::Stepped | Stop::CycleLimit | Stop::PinChange => {}
                other => {
                    self.pause(Some(describe_stop(&other)));
                    return;
                }
            }
            if is_ret && self.board.avr.sp() > sp0 {
                self.steps += 1;
                self.pause(None);
                return;
            }
            if self.breakpoints.contains(&self.board.avr.pc()) {
                let pc = self.board.avr.pc();
                self.pause(Some(describe_stop(&Stop::Breakpoint(pc))));
                return;
            }
        }
    }

    fn collect_warnings(&mut self) {
        for w in self.board.avr.take_warnings() {
            self.warning_count += 1;
            push_capped(
                &mut self.warnings,
                format!("cycle {} pc {}: {}: {}", w.cycle, w.pc.map(|p| format!("0x{:04x}", p * 2)).unwrap_or("-".into()), w.source, w.message),
            );
        }
        for w in self.board.lcd.take_warnings() {
            self.lcd_warning_count += 1;
            push_capped(&mut self.lcd_warnings, w.to_string());
        }
    }

    /// Counts presses that reached the chip's pins.
    fn note_pins(&mut self) {
        let pins = self.board.avr.pins();
        for b in Button::ALL {
            let p = b.pin();
            let low = pins.level(p.port.index()) & p.mask() == 0;
            if low && !self.pin_was_low[b as usize] {
                self.presses_seen[b as usize] += 1;
            }
            self.pin_was_low[b as usize] = low;
        }
    }

    /// Records a (wall, cycles) sample and returns (MHz, realtime factor).
    pub fn measure(&mut self, now: Instant) -> (f64, f64) {
        let cycles = self.cycles();
        self.rate.push_back((now, cycles));
        while self.rate.len() > 2 && now.duration_since(self.rate[0].0) > Duration::from_millis(500) {
            self.rate.pop_front();
        }
        let (t0, c0) = self.rate[0];
        let dt = now.duration_since(t0).as_secs_f64();
        if dt <= 0.0 || !self.is_running() {
            return (0.0, 0.0);
        }
        let mhz = cycles.saturating_sub(c0) as f64 / dt / 1e6;
        (mhz, mhz * 1e6 / self.clock_hz as f64)
    }

    pub fn snapshot(&self, mhz: f64, realtime: f64) -> Snapshot {
        let avr = &self.board.avr;
        let now = avr.cycles();
        let powered = self.powered;
        let lcd = &self.board.lcd;
        let lcd_pixels = if powered { lcd.pixels(now).to_vec() } else { vec![[[false; 5]; 8]; 32] };
        let pins = avr.pins();
        Snapshot {
            seq: self.seq,
            program: self.program.clone(),
            powered,
            running: self.is_running(),
            speed: self.speed,
            goal: self.goal.map(|g| match g {
                Goal::Until { what: GoalKind::StepOver, .. } => "stepping over".to_string(),
                Goal::Until { pc, what: GoalKind::RunTo, .. } => format!("running to 0x{:04x}", pc * 2),
                Goal::StepOut { .. } => "stepping out".to_string(),
            }),
            clock_hz: self.clock_hz,
            cycles: now,
            mhz,
            realtime,
            pc: avr.pc(),
            sp: avr.sp(),
            min_sp: avr.min_sp(),
            sreg: avr.sreg(),
            regs: avr.regs(),
            sleeping: avr.is_sleeping(),
            sram: avr.read_data_range(0, RAMEND as usize + 1),
            eeprom: self.eeprom().to_vec(),
            lcd_pixels,
            lcd_text: if powered { lcd.text() } else { [" ".repeat(16), " ".repeat(16)] },
            backlight: powered && lcd.backlight(),
            display_on: powered && lcd.display_on(),
            tone: if powered { self.board.buzzer.current_tone(now) } else { None },
            buttons_held: Button::ALL.map(|b| self.pressed_at[b as usize].is_some()),
            button_pins_low: Button::ALL.map(|b| pins.level(b.pin().port.index()) & b.pin().mask() == 0),
            presses_seen: self.presses_seen,
            breakpoints: self.breakpoints.iter().copied().collect(),
            watchpoints: self.watchpoints.clone(),
            warnings: self.warnings.iter().cloned().collect(),
            warning_count: self.warning_count,
            lcd_warnings: self.lcd_warnings.iter().cloned().collect(),
            lcd_warning_count: self.lcd_warning_count,
            last_stop: self.last_stop.clone(),
            error: self.error.clone(),
            steps: self.steps,
            visual: 0,
        }
        .with_visual_hash()
    }
}

impl Snapshot {
    fn with_visual_hash(mut self) -> Snapshot {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.lcd_pixels.hash(&mut h);
        (self.backlight, self.display_on, self.powered, self.running, self.tone.map(f32::to_bits)).hash(&mut h);
        (self.button_pins_low, self.buttons_held, &self.last_stop, &self.error, self.seq).hash(&mut h);
        self.visual = h.finish();
        self
    }
}

fn push_capped(list: &mut VecDeque<String>, s: String) {
    if list.len() == KEEP_WARNINGS {
        list.pop_front();
    }
    list.push_back(s);
}

/// Why the emulator thread wakes the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    /// A command was applied, the CPU started or stopped, or something
    /// changed while paused.
    Now,
    /// While running, the board's look changed (see [`WakePacer`]).
    Look,
}

/// When the emulator thread wakes the window, decided at each publish.
///
/// At once after a command, a start or a stop, and for anything while
/// paused. While running, only for a change of [`Snapshot::visual`] (what a
/// person watching the board sees), and only `settle` after it: whatever
/// else changed meanwhile is drawn in the same frame, and a change that was
/// undone by then (the firmware parking the LCD's blinking cursor on
/// another cell for a few ms while it writes there) is not drawn at all,
/// as the LCD's slow liquid crystal would hardly show it. The counters that
/// change all the time (cycles, registers) wake nobody: the window
/// refreshes them at its own slow pace.
#[derive(Clone, Debug, Default)]
pub struct WakePacer {
    /// `visual` of the snapshot the window was last woken for.
    shown: u64,
    /// A change of `visual` waits until then.
    due: Option<Instant>,
}

impl WakePacer {
    /// Whether to wake the window for the snapshot just published.
    /// `urgent`: a command was applied, the CPU started or stopped, or it
    /// is paused.
    pub fn wake(&mut self, now: Instant, visual: u64, settle: Duration, urgent: bool) -> Option<Wake> {
        if urgent {
            self.shown = visual;
            self.due = None;
            return Some(Wake::Now);
        }
        if visual == self.shown {
            self.due = None;
            return None;
        }
        match self.due {
            Some(due) if now >= due => {
                self.shown = visual;
                self.due = None;
                Some(Wake::Look)
            }
            Some(_) => None,
            None => {
                self.due = Some(now + settle);
                None
            }
        }
    }
}

type Repaint = Box<dyn Fn(Wake) + Send + Sync>;

struct Shared {
    snapshot: Mutex<Arc<Snapshot>>,
    repaint: Mutex<Option<Repaint>>,
}

/// The UI's end of the emulator thread.
pub struct SimHandle {
    tx: Sender<Command>,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl SimHandle {
    /// Loads `path` on a new emulator thread (the emulator is not `Send`:
    /// it lives and dies there), applies `setup`, and returns once the
    /// first snapshot is published. Load errors are one line.
    pub fn start(path: &Path, clock_hz: u32, setup: Vec<Command>) -> Result<SimHandle, String> {
        let (tx, rx) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<Arc<Shared>, String>>();
        let path = path.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("emulator".into())
            .spawn(move || {
                let mut core = match SimCore::load(&path, clock_hz) {
                    Ok(c) => c,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                for c in setup {
                    core.handle(c);
                }
                let first = Arc::new(core.snapshot(0.0, 0.0));
                let shared = Arc::new(Shared { snapshot: Mutex::new(first), repaint: Mutex::new(None) });
                let _ = ready_tx.send(Ok(shared.clone()));
                sim_thread(core, rx, shared)
            })
            .map_err(|e| format!("cannot start the emulator thread: {e}"))?;
        match ready_rx.recv() {
            Ok(Ok(shared)) => Ok(SimHandle { tx, shared, thread: Some(thread) }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => Err("the emulator thread died while loading".into()),
        }
    }

    pub fn send(&self, cmd: Command) {
        // The thread only ends on Quit or drop: nothing to report.
        let _ = self.tx.send(cmd);
    }

    /// The latest snapshot.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.shared.snapshot.lock().map(|s| s.clone()).unwrap_or_else(|e| e.into_inner().clone())
    }

    /// Called by the thread when the window should redraw (see
    /// [`WakePacer`]).
    pub fn set_repaint(&self, f: impl Fn(Wake) + Send + Sync + 'static) {
        if let Ok(mut r) = self.shared.repaint.lock() {
            *r = Some(Box::new(f));
        }
    }

    /// Waits (up to `timeout`) for a snapshot satisfying `pred`.
    pub fn wait_for(&self, timeout: Duration, pred: impl Fn(&Snapshot) -> bool) -> Option<Arc<Snapshot>> {
        let start = Instant::now();
        loop {
            let s = self.snapshot();
            if pred(&s) {
                return Some(s);
            }
            if start.elapsed() > timeout {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        let _ = self.tx.send(Command::Quit);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// How often the thread wakes at 1x/10x to let emulated time catch up.
const TICK: Duration = Duration::from_millis(5);

fn sim_thread(mut core: SimCore, rx: Receiver<Command>, shared: Arc<Shared>) {
    let publish_every = Duration::from_secs_f64(1.0 / PUBLISH_HZ);
    let mut last_publish = Instant::now() - publish_every;
    let mut published_seq = u64::MAX;
    let mut pacer = WakePacer::default();
    let mut was_running = !core.is_running();
    // Real-time pacing: emulated cycle `anchor.1` at wall time `anchor.0`.
    let mut anchor: Option<(Instant, u64, Speed)> = None;
    // Max speed: cycles per slice, adapted to take about 4 ms.
    let mut chunk: u64 = 200_000;
    loop {
        // Commands: block while paused, else just look.
        let first = if core.is_running() {
            match rx.try_recv() {
                Ok(c) => Some(c),
                Err(mpsc::TryRecvError::Empty) => None,
                Err(mpsc::TryRecvError::Disconnected) => return,
            }
        } else {
            match rx.recv_timeout(Duration::from_millis(250)) {
                Ok(c) => Some(c),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        };
        if let Some(c) = first {
            if !core.handle(c) {
                return;
            }
            while let Ok(c) = rx.try_recv() {
                if !core.handle(c) {
                    return;
                }
            }
        }
        let running = core.is_running();
        let mut idle_for = None;
        if running {
            match core.speed().factor() {
                Some(f) => {
                    let now = Instant::now();
                    let a = match anchor {
                        Some(a) if a.2 == core.speed() => a,
                        _ => (now, core.cycles(), core.speed()),
                    };
                    anchor = Some(a);
                    let target = a.1 + (now.duration_since(a.0).as_secs_f64() * core.clock_hz() as f64 * f) as u64;
                    let behind = target.saturating_sub(core.cycles());
                    // More than 100 ms behind (a slow debug run): don't try
                    // to catch up, just go on from here.
                    let limit = (core.clock_hz() as f64 * f * 0.1) as u64;
                    core.run_slice(behind.min(limit));
                    if behind > limit {
                        anchor = Some((now, core.cycles(), core.speed()));
                    }
                    idle_for = Some(TICK);
                }
                None => {
                    anchor = None;
                    let t = Instant::now();
                    core.run_slice(chunk);
                    let took = t.elapsed();
                    if took < Duration::from_millis(2) {
                        chunk = (chunk * 2).min(1 << 34);
                    } else if took > Duration::from_millis(8) {
                        chunk = (chunk / 2).max(1000);
                    }
                }
            }
        } else {
            anchor = None;
        }
        let now = Instant::now();
        let changed = core.seq != published_seq || running != was_running;
        if changed || (running && now.duration_since(last_publish) >= publish_every) {
            let (mhz, rt) = core.measure(now);
            let snap = Arc::new(core.snapshot(mhz, rt));
            let visual = snap.visual;
            if let Ok(mut s) = shared.snapshot.lock() {
                *s = snap;
            }
            last_publish = now;
            let settle = if core.speed() == Speed::Max { super::MAX_SPEED_FRAME } else { super::RUNNING_FRAME };
            if let Some(wake) = pacer.wake(now, visual, settle, changed || !core.is_running()) {
                if let Ok(r) = shared.repaint.lock() {
                    if let Some(r) = r.as_ref() {
                        r(wake);
                    }
                }
            }
            published_seq = core.seq;
            was_running = core.is_running();
        }
        if let Some(d) = idle_for {
            match rx.recv_timeout(d) {
                Ok(c) => {
                    if !core.handle(c) {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }
}
