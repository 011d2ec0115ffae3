//! The board as a gdbstub target: registers, memory, breakpoints,
//! watchpoints, resuming in slices, and `monitor` commands.

use super::arch::{AvrArch, AvrRegId, AvrRegs};
use super::memory::{self, DATA_BASE};
use crate::board::Board;
use emulator::avr::{Access, FaultKind, Stop, WatchKind as EmuWatch};
use firmware::board::Button;
use gdbstub::common::Signal;
use gdbstub::stub::SingleThreadStopReason;
use gdbstub::target::ext::base::single_register_access::{SingleRegisterAccess, SingleRegisterAccessOps};
use gdbstub::target::ext::base::singlethread::{
    SingleThreadBase, SingleThreadRangeStepping, SingleThreadRangeSteppingOps, SingleThreadResume,
    SingleThreadResumeOps, SingleThreadSingleStep, SingleThreadSingleStepOps,
};
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::{
    Breakpoints, BreakpointsOps, HwWatchpoint, HwWatchpointOps, SwBreakpoint, SwBreakpointOps, WatchKind,
};
use gdbstub::target::ext::monitor_cmd::{ConsoleOutput, MonitorCmd, MonitorCmdOps};
use gdbstub::target::{Target, TargetError, TargetResult};
use std::fmt::Write as _;
use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

pub type StopReason = SingleThreadStopReason<u32>;

/// How the target runs after gdb resumes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Continue,
    Step,
    /// Step while the PC (byte address) is in `start..end` (vCont;r).
    RangeStep { start: u32, end: u32 },
}

/// Emulated time one run slice covers; the connection is polled (for
/// Ctrl-C) between slices.
const SLICE_SECONDS: f64 = 0.005;
/// Instructions a range step executes before the connection is polled.
const RANGE_STEP_SLICE: u32 = 20_000;
/// Shortest wall time between two LCD lines echoed while running.
const LCD_ECHO_INTERVAL: Duration = Duration::from_millis(100);

/// The board under gdb's control.
pub struct GdbTarget {
    pub board: Board,
    mode: Mode,
    /// Real-time pacing: emulated time follows the wall clock.
    realtime: bool,
    /// Wall time and cycle counter the pacing counts from.
    pace_from: Option<(Instant, u64)>,
    /// True until the first slice after a resume has run (which may pass a
    /// breakpoint at the resume PC).
    fresh_resume: bool,
    /// Data watchpoints as gdb set them (duplicates kept: the emulator
    /// removes every equal watchpoint at once).
    watches: Vec<(RangeInclusive<u16>, EmuWatch)>,
    /// Echo LCD changes on stderr.
    echo_lcd: bool,
    lcd_shown: [String; 2],
    lcd_shown_at: Option<Instant>,
}

impl GdbTarget {
    pub fn new(board: Board, realtime: bool, echo_lcd: bool) -> GdbTarget {
        let lcd_shown = board.lcd_text();
        GdbTarget {
            board,
            mode: Mode::Continue,
            realtime,
            pace_from: None,
            fresh_resume: true,
            watches: Vec::new(),
            echo_lcd,
            lcd_shown,
            lcd_shown_at: None,
        }
    }

    /// Forgets every breakpoint and watchpoint (a new session starts clean;
    /// a detached board runs at full speed) and restarts the pacing.
    pub fn clear_debug_state(&mut self) {
        self.board.avr.clear_breakpoints();
        self.board.avr.clear_watchpoints();
        self.watches.clear();
        self.pace_from = None;
    }

    /// Puts a new board in (a power cycle).
    pub fn replace_board(&mut self, board: Board) {
        self.board = board;
        self.lcd_shown = self.board.lcd_text();
        self.clear_debug_state();
    }

    fn clock_hz(&self) -> u64 {
        self.board.clock_hz() as u64
    }

    fn start_resume(&mut self, mode: Mode) {
        self.mode = mode;
        self.pace_from = None;
        self.fresh_resume = true;
    }

    /// Runs the target a little. `Some` when it stopped (the reason to
    /// report to gdb), `None` when it is still running and the connection
    /// should be polled.
    pub fn run_slice(&mut self) -> Option<StopReason> {
        let stop = match self.mode {
            Mode::Step => {
                let stop = self.board.step();
                self.show_lcd(true);
                return Some(self.stop_reason(stop).unwrap_or(StopReason::DoneStep));
            }
            Mode::RangeStep { start, end } => self.range_step(start, end),
            Mode::Continue => self.continue_slice(),
        };
        if stop.is_some() {
            self.show_lcd(true);
        }
        stop
    }

    fn range_step(&mut self, start: u32, end: u32) -> Option<StopReason> {
        for _ in 0..RANGE_STEP_SLICE {
            let stop = self.board.step();
            if let Some(reason) = self.stop_reason(stop) {
                return Some(reason);
            }
            let pc = self.board.avr.pc();
            if !(start..end).contains(&(pc * 2)) {
                return Some(StopReason::DoneStep);
            }
            if self.board.avr.is_breakpoint(pc) {
                return Some(StopReason::SwBreak(()));
            }
        }
        None
    }

    fn continue_slice(&mut self) -> Option<StopReason> {
        let avr = &self.board.avr;
        if !std::mem::take(&mut self.fresh_resume) && !avr.is_sleeping() && avr.is_breakpoint(avr.pc()) {
            // The previous slice ended right before a breakpoint.
            return Some(StopReason::SwBreak(()));
        }
        let slice = ((self.clock_hz() as f64 * SLICE_SECONDS) as u64).max(1);
        let stop = self.board.run_for(slice);
        if let Some(reason) = self.stop_reason(stop) {
            return Some(reason);
        }
        self.show_lcd(false);
        self.pace();
        None
    }

    /// Runs the board without gdb (after a detach) for one slice. Returns
    /// false once it stopped for good (a fault, or asleep for ever), after
    /// saying why on stderr.
    pub fn free_run_slice(&mut self) -> bool {
        let slice = ((self.clock_hz() as f64 * SLICE_SECONDS) as u64).max(1);
        let stop = self.board.run_for(slice);
        self.show_lcd(false);
        match stop {
            Stop::CycleLimit | Stop::PinChange | Stop::Stepped => {}
            // No breakpoints are left, but a stop is a stop: keep running.
            Stop::Breakpoint(_) | Stop::Watchpoint { .. } | Stop::Break(_) | Stop::StackCollision { .. } => {
                let _ = self.stop_reason(stop);
            }
            Stop::Sleeping { .. } | Stop::Fault(_) => {
                let _ = self.stop_reason(stop);
                return false;
            }
        }
        self.pace();
        true
    }

    /// Sleeps while emulated time is ahead of the wall clock.
    fn pace(&mut self) {
        if !self.realtime {
            return;
        }
        let cycles = self.board.avr.cycles();
        let (t0, c0) = *self.pace_from.get_or_insert((Instant::now(), cycles));
        let emulated = Duration::from_secs_f64(cycles.saturating_sub(c0) as f64 / self.clock_hz() as f64);
        let wall = t0.elapsed();
        if emulated > wall {
            std::thread::sleep((emulated - wall).min(Duration::from_millis(20)));
        } else if wall - emulated > Duration::from_millis(200) {
            // Too slow to keep up (breakpoints make every instruction
            // checked): don't try to catch up later in a burst.
            self.pace_from = Some((Instant::now(), cycles));
        }
    }

    /// What to tell gdb about an emulator stop; `None` for stops that are
    /// not stops (a slice ended). Unusual stops are explained on stderr.
    fn stop_reason(&self, stop: Stop) -> Option<StopReason> {
        let avr = &self.board.avr;
        let here = |pc: u32| format!("at {:#06x} ({})", pc * 2, avr.disassemble(pc));
        Some(match stop {
            Stop::CycleLimit | Stop::PinChange | Stop::Stepped => return None,
            Stop::Breakpoint(_) => StopReason::SwBreak(()),
            Stop::Watchpoint { addr, kind, .. } => {
                // Report an access watchpoint (awatch) as such, else the access.
                let covering = self.watches.iter().filter(|(r, _)| r.contains(&addr));
                let kind = if covering.clone().any(|(_, k)| *k == EmuWatch::ReadWrite)
                    && !covering.clone().any(|(_, k)| *k == access_kind(kind))
                {
                    WatchKind::ReadWrite
                } else {
                    match kind {
                        Access::Read => WatchKind::Read,
                        Access::Write => WatchKind::Write,
                    }
                };
                StopReason::Watch { tid: (), kind, addr: DATA_BASE + addr as u32 }
            }
            Stop::Sleeping { pc, interrupts_enabled } => {
                let why = if interrupts_enabled { "nothing is scheduled to wake it" } else { "interrupts are disabled" };
                eprintln!("board-sim: the CPU sleeps {} and {why}: reporting SIGSTOP", here(pc));
                StopReason::Signal(Signal::SIGSTOP)
            }
            Stop::Fault(fault) => {
                eprintln!("board-sim: fault: {fault}");
                match fault.kind {
                    FaultKind::UndefinedOpcode => StopReason::Signal(Signal::SIGILL),
                    FaultKind::DataOutOfRange { .. } => StopReason::Signal(Signal::SIGSEGV),
                }
            }
            Stop::StackCollision { pc, cycle, sp } => {
                eprintln!(
                    "board-sim: stack collision {}: SP {sp:#06x} is below the end of static data {:#06x} (cycle {cycle})",
                    here(pc),
                    avr.stack_limit()
                );
                StopReason::Signal(Signal::SIGSEGV)
            }
            Stop::Break(pc) => {
                eprintln!("board-sim: BREAK instruction {}", here(pc));
                StopReason::Signal(Signal::SIGTRAP)
            }
        })
    }

    /// Echoes the LCD on stderr when it changed (at most every
    /// [`LCD_ECHO_INTERVAL`] unless `now`).
    fn show_lcd(&mut self, now: bool) {
        if !self.echo_lcd {
            return;
        }
        if !now && self.lcd_shown_at.is_some_and(|t| t.elapsed() < LCD_ECHO_INTERVAL) {
            return;
        }
        let text = self.board.lcd_text();
        if text != self.lcd_shown {
            eprintln!("board-sim: LCD [{}] [{}] at {:.3} s", text[0], text[1], self.board.avr.seconds());
            self.lcd_shown = text;
            self.lcd_shown_at = Some(Instant::now());
        }
    }

    /// The text of `monitor help`.
    pub const MONITOR_HELP: &'static str = "\
monitor commands:
  lcd                     the two LCD lines
  press|release BUTTON    hold or let go of MENU, UP, DOWN or ENTER
  tap BUTTON [MS]         press for MS emulated milliseconds (default 100)
  time                    cycles and emulated seconds since power-on
  stack                   SP, deepest stack so far, stack limit
  reset                   external reset (RESET pin): PC 0, SRAM kept
  realtime on|off         pace emulated time to the wall clock or run flat out";

    fn monitor(&mut self, cmd: &str) -> String {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let avr = &self.board.avr;
        match words.as_slice() {
            [] | ["help"] => Self::MONITOR_HELP.to_string(),
            ["lcd"] => {
                let [a, b] = self.board.lcd_text();
                format!("[{a}]\n[{b}]")
            }
            ["time"] => format!("{} cycles, {:.6} s at {} Hz", avr.cycles(), avr.seconds(), avr.config().clock_hz),
            ["stack"] => format!(
                "SP {:#06x}, lowest SP {:#06x} ({} bytes deep), limit {:#06x}",
                avr.sp(),
                avr.min_sp(),
                avr.max_stack_bytes(),
                avr.stack_limit()
            ),
            ["reset"] => {
                self.board.avr.reset();
                "reset: PC 0".to_string()
            }
            ["realtime", v @ ("on" | "off")] => {
                self.realtime = *v == "on";
                format!("realtime {v}")
            }
            [verb @ ("press" | "release" | "tap"), name, rest @ ..] => {
                let Some(button) = Button::ALL.into_iter().find(|b| b.name().eq_ignore_ascii_case(name)) else {
                    return format!("unknown button {name:?}: MENU, UP, DOWN or ENTER");
                };
                match *verb {
                    "press" => self.board.press(button),
                    "release" => self.board.release(button),
                    _ => {
                        let ms: u64 = match rest {
                            [] => 100,
                            [ms] => match ms.parse() {
                                Ok(ms) => ms,
                                Err(_) => return format!("bad milliseconds {ms:?}"),
                            },
                            _ => return "usage: tap BUTTON [MS]".to_string(),
                        };
                        self.board.press(button);
                        let at = self.board.avr.cycles() + ms * self.clock_hz() / 1000;
                        self.board.buttons.release(button, at);
                    }
                }
                format!("{verb} {} (continue to let the firmware see it)", button.name())
            }
            _ => format!("unknown command {cmd:?}\n{}", Self::MONITOR_HELP),
        }
    }
}

fn access_kind(a: Access) -> EmuWatch {
    match a {
        Access::Read => EmuWatch::Read,
        Access::Write => EmuWatch::Write,
    }
}

impl Target for GdbTarget {
    type Arch = AvrArch;
    type Error = String;

    fn base_ops(&mut self) -> BaseOps<'_, AvrArch, String> {
        BaseOps::SingleThread(self)
    }

    fn support_breakpoints(&mut self) -> Option<BreakpointsOps<'_, Self>> {
        Some(self)
    }

    fn support_monitor_cmd(&mut self) -> Option<MonitorCmdOps<'_, Self>> {
        Some(self)
    }
}

impl SingleThreadBase for GdbTarget {
    fn read_registers(&mut self, regs: &mut AvrRegs) -> TargetResult<(), Self> {
        *regs = memory::read_regs(&self.board.avr);
        Ok(())
    }

    fn write_registers(&mut self, regs: &AvrRegs) -> TargetResult<(), Self> {
        memory::write_regs(&mut self.board.avr, regs);
        Ok(())
    }

    fn support_single_register_access(&mut self) -> Option<SingleRegisterAccessOps<'_, (), Self>> {
        Some(self)
    }

    fn read_addrs(&mut self, start_addr: u32, data: &mut [u8]) -> TargetResult<usize, Self> {
        match memory::read(&self.board.avr, start_addr, data) {
            0 if !data.is_empty() => Err(TargetError::Errno(14)), // EFAULT
            n => Ok(n),
        }
    }

    fn write_addrs(&mut self, start_addr: u32, data: &[u8]) -> TargetResult<(), Self> {
        memory::write(&mut self.board.avr, start_addr, data).map_err(|_| TargetError::Errno(14))
    }

    fn support_resume(&mut self) -> Option<SingleThreadResumeOps<'_, Self>> {
        Some(self)
    }
}

impl SingleRegisterAccess<()> for GdbTarget {
    fn read_register(&mut self, _tid: (), reg_id: AvrRegId, buf: &mut [u8]) -> TargetResult<usize, Self> {
        let bytes = memory::read_reg(&self.board.avr, reg_id);
        let n = bytes.len().min(buf.len());
        buf[..n].copy_from_slice(&bytes[..n]);
        Ok(n)
    }

    fn write_register(&mut self, _tid: (), reg_id: AvrRegId, val: &[u8]) -> TargetResult<(), Self> {
        memory::write_reg(&mut self.board.avr, reg_id, val).map_err(|_| TargetError::NonFatal)
    }
}

// Signals gdb passes on resume (`continue` after a SIGSTOP...) mean nothing
// to a microcontroller: they are ignored.
impl SingleThreadResume for GdbTarget {
    fn resume(&mut self, _signal: Option<Signal>) -> Result<(), String> {
        self.start_resume(Mode::Continue);
        Ok(())
    }

    fn support_single_step(&mut self) -> Option<SingleThreadSingleStepOps<'_, Self>> {
        Some(self)
    }

    fn support_range_step(&mut self) -> Option<SingleThreadRangeSteppingOps<'_, Self>> {
        Some(self)
    }
}

impl SingleThreadSingleStep for GdbTarget {
    fn step(&mut self, _signal: Option<Signal>) -> Result<(), String> {
        self.start_resume(Mode::Step);
        Ok(())
    }
}

impl SingleThreadRangeStepping for GdbTarget {
    fn resume_range_step(&mut self, start: u32, end: u32) -> Result<(), String> {
        self.start_resume(Mode::RangeStep { start, end });
        Ok(())
    }
}

impl Breakpoints for GdbTarget {
    fn support_sw_breakpoint(&mut self) -> Option<SwBreakpointOps<'_, Self>> {
        Some(self)
    }

    fn support_hw_watchpoint(&mut self) -> Option<HwWatchpointOps<'_, Self>> {
        Some(self)
    }
}

/// Word address of a flash byte address gdb puts a breakpoint at.
fn breakpoint_word(addr: u32) -> Option<u32> {
    match memory::locate(addr) {
        Some(memory::Location::Flash(a)) if a % 2 == 0 => Some(a / 2),
        _ => None,
    }
}

impl SwBreakpoint for GdbTarget {
    fn add_sw_breakpoint(&mut self, addr: u32, _kind: usize) -> TargetResult<bool, Self> {
        let Some(pc) = breakpoint_word(addr) else { return Ok(false) };
        self.board.avr.add_breakpoint(pc);
        Ok(true)
    }

    fn remove_sw_breakpoint(&mut self, addr: u32, _kind: usize) -> TargetResult<bool, Self> {
        let Some(pc) = breakpoint_word(addr) else { return Ok(false) };
        Ok(self.board.avr.remove_breakpoint(pc))
    }
}

fn watch_range(addr: u32, len: u32, kind: WatchKind) -> Option<(RangeInclusive<u16>, EmuWatch)> {
    let first = memory::data_addr(addr)?;
    let last = memory::data_addr(addr.checked_add(len.max(1) - 1)?)?;
    let kind = match kind {
        WatchKind::Write => EmuWatch::Write,
        WatchKind::Read => EmuWatch::Read,
        WatchKind::ReadWrite => EmuWatch::ReadWrite,
    };
    Some((first..=last, kind))
}

impl HwWatchpoint for GdbTarget {
    fn add_hw_watchpoint(&mut self, addr: u32, len: u32, kind: WatchKind) -> TargetResult<bool, Self> {
        let Some((range, kind)) = watch_range(addr, len, kind) else { return Ok(false) };
        self.board.avr.add_watchpoint(range.clone(), kind);
        self.watches.push((range, kind));
        Ok(true)
    }

    fn remove_hw_watchpoint(&mut self, addr: u32, len: u32, kind: WatchKind) -> TargetResult<bool, Self> {
        let Some(wp) = watch_range(addr, len, kind) else { return Ok(false) };
        let Some(i) = self.watches.iter().position(|w| *w == wp) else { return Ok(false) };
        self.watches.remove(i);
        // The emulator removes all equal ones: put back the others.
        self.board.avr.remove_watchpoint(wp.0.clone(), wp.1);
        for _ in self.watches.iter().filter(|w| **w == wp) {
            self.board.avr.add_watchpoint(wp.0.clone(), wp.1);
        }
        Ok(true)
    }
}

impl MonitorCmd for GdbTarget {
    fn handle_monitor_cmd(&mut self, cmd: &[u8], mut out: ConsoleOutput<'_>) -> Result<(), String> {
        let reply = match std::str::from_utf8(cmd) {
            Ok(cmd) => self.monitor(cmd),
            Err(_) => "monitor commands are text".to_string(),
        };
        let _ = writeln!(out, "{reply}");
        Ok(())
    }
}
