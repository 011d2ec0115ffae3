//! Driving time: the run loop, peripheral scheduling, interrupts, sleep
//! and reset.
//!
//! The outer loop ("service") does everything that is not executing an
//! instruction: it runs due peripheral events, applies resets, takes
//! interrupts and skips time while asleep. It then lets the inner loop
//! execute instructions until `attention`, the earliest cycle anything
//! could need it again (the next peripheral event or the run limit).
//! Instructions that may change the interrupt state (I/O accesses, SEI,
//! RETI, SREG writes) set `attention` to 0 to come back early.

use super::{Avr, Fault, FaultKind, OWNER_NONE};
use crate::cpu::flags;
use crate::debug::Access;
use crate::device::{mcusr, reg, IRQ_ENTRY_CYCLES, IRQ_WAKE_CYCLES, RAMEND};
use crate::peripheral::{ResetCause, Sleep, NEVER};

/// How long [`Avr::run`] may run. Breakpoints, watchpoints, faults, BREAK,
/// stack collisions and a sleep nothing can end stop every kind of run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunLimit {
    /// At most this many more cycles.
    Cycles(u64),
    /// Until the cycle counter reaches this value.
    UntilCycle(u64),
    /// Until SLEEP executes with interrupts disabled (the "program is
    /// finished" convention: `cli; sleep`), or `max_cycles` more cycles.
    UntilSleep { max_cycles: u64 },
    /// No cycle limit: until a breakpoint or any other stop.
    Forever,
}

/// Why a run stopped. After every stop the machine can be run again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The run limit was reached.
    CycleLimit,
    /// One instruction was executed by [`Avr::step`].
    Stepped,
    /// About to execute the instruction at this word address.
    Breakpoint(u32),
    /// The instruction at `pc` accessed `addr`; the run stops after it.
    Watchpoint { addr: u16, kind: Access, pc: u32 },
    /// The CPU sleeps and nothing can wake it: interrupts are disabled (and
    /// no watchdog is running), or the run has no cycle limit and no
    /// peripheral has an event scheduled (a pin change still could). With
    /// [`RunLimit::UntilSleep`] also reported as soon as SLEEP executes with
    /// I clear. `pc` is the instruction after the SLEEP.
    Sleeping { pc: u32, interrupts_enabled: bool },
    /// The program did something impossible; PC stays at the instruction.
    Fault(Fault),
    /// SP dropped below the end of static data (see [`Avr::stack_limit`]).
    StackCollision { pc: u32, cycle: u64, sp: u16 },
    /// A BREAK instruction at this word address was executed.
    Break(u32),
    /// A pin watched with [`Avr::watch_pins`] changed level (the run stops
    /// after the instruction or peripheral event that changed it).
    PinChange,
}

impl RunLimit {
    fn end(self, now: u64) -> u64 {
        match self {
            RunLimit::Cycles(n) | RunLimit::UntilSleep { max_cycles: n } => now.saturating_add(n),
            RunLimit::UntilCycle(c) => c,
            RunLimit::Forever => NEVER,
        }
    }
}

impl Avr {
    /// Runs until `limit` or another [`Stop`]. A breakpoint at the current
    /// PC does not stop the first instruction, so `run` after a breakpoint
    /// stop continues.
    pub fn run(&mut self, limit: RunLimit) -> Stop {
        let end = limit.end(self.cycles);
        self.stop_on_sleep = matches!(limit, RunLimit::UntilSleep { .. });
        let start_pc = self.pc;
        let mut first = true;
        let stop = loop {
            if let Some(stop) = self.service(end) {
                break stop;
            }
            if self.debug.active() {
                if !(first && self.pc == start_pc) && self.debug.is_breakpoint(self.pc) {
                    break Stop::Breakpoint(self.pc);
                }
                self.step_checked();
            } else if self.irq_inhibit {
                self.irq_inhibit = false;
                self.execute::<false>();
            } else {
                self.attention = self.next_min.min(end);
                while self.cycles < self.attention {
                    self.execute::<false>();
                }
            }
            first = false;
        };
        self.stop_on_sleep = false;
        stop
    }

    /// Executes one instruction (or takes one pending interrupt, or sleeps
    /// until the next event) and stops.
    pub fn step(&mut self) -> Stop {
        if let Some(stop) = self.service(NEVER) {
            return stop;
        }
        self.step_checked();
        self.pending_stop.take().unwrap_or(Stop::Stepped)
    }

    /// One instruction with watchpoint checks.
    fn step_checked(&mut self) {
        let pc = self.pc;
        self.irq_inhibit = false;
        if self.debug.active() {
            self.execute::<true>();
            if let Some((addr, kind)) = self.debug.hit.take() {
                // A watched pin the same access moved must not hide the hit
                // (the stop is at the same cycle; hosts sync after any stop).
                if self.pending_stop == Some(Stop::PinChange) {
                    self.pending_stop = None;
                }
                self.set_stop(Stop::Watchpoint { addr, kind, pc });
            }
        } else {
            self.execute::<false>();
        }
    }

    /// Everything between instructions. Returns a stop, or `None` when the
    /// CPU should execute the instruction at PC next.
    fn service(&mut self, end: u64) -> Option<Stop> {
        loop {
            if let Some(stop) = self.pending_stop.take() {
                return Some(stop);
            }
            if self.host_touched {
                self.host_touched = false;
                self.update_all();
            } else if self.cycles >= self.next_min {
                self.update_due();
            }
            if let Some(cause) = self.shared.reset.take() {
                self.reset_chip(cause);
                continue;
            }
            if self.sreg & flags::I != 0 && self.shared.irq >> 1 != 0 && !self.irq_inhibit {
                self.take_interrupt();
                continue;
            }
            if self.cycles >= end {
                return Some(Stop::CycleLimit);
            }
            if !self.sleeping {
                return None;
            }
            // Asleep: jump straight to the next event. With I clear only a
            // watchdog reset can end the sleep: the program has finished.
            // With I set and nothing scheduled, only the host can wake the
            // chip (a pin change), so time runs on to the limit, if any.
            let enabled = self.sreg & flags::I != 0;
            let next = if enabled { self.next_min } else { self.watchdog_next_event() };
            if next == NEVER && (!enabled || end == NEVER) {
                return Some(Stop::Sleeping { pc: self.pc, interrupts_enabled: enabled });
            }
            self.cycles = self.cycles.max(next.min(end));
        }
    }

    /// Lets time pass while the CPU sleeps, up to `cycle` (or until an
    /// interrupt becomes pending, which the next run takes). For hosts that
    /// know when they will next wake the chip from outside. Does nothing
    /// while the CPU is awake: then time passes only by running.
    pub fn skip_to(&mut self, cycle: u64) {
        while self.sleeping && self.cycles < cycle {
            self.cycles = self.next_min.min(cycle).max(self.cycles);
            self.update_due();
            if self.shared.reset.is_some() || (self.sreg & flags::I != 0 && self.shared.irq >> 1 != 0) {
                break;
            }
        }
    }

    /// Runs the events of every peripheral whose cycle has come.
    fn update_due(&mut self) {
        let now = self.cycles;
        let pc = self.pc;
        let mut min = NEVER;
        for (i, p) in self.periphs.iter_mut().enumerate() {
            if self.next_event[i] <= now {
                self.next_event[i] = p.update(&mut self.shared.ctx(now, pc));
            }
            min = min.min(self.next_event[i]);
        }
        self.next_min = min;
        self.cycles += std::mem::take(&mut self.shared.stall) as u64;
        self.check_pin_watch();
    }

    /// Re-queries every peripheral's schedule (after host-side changes).
    fn update_all(&mut self) {
        let now = self.cycles;
        let pc = self.pc;
        for (i, p) in self.periphs.iter_mut().enumerate() {
            self.next_event[i] = p.update(&mut self.shared.ctx(now, pc));
        }
        self.next_min = self.next_event.iter().copied().min().unwrap_or(NEVER);
    }

    /// Enters the highest-priority pending interrupt: wake up if asleep
    /// (+4 cycles), push PC, clear I, jump to the vector (4 cycles), and
    /// let the owning peripheral clear its flag.
    fn take_interrupt(&mut self) {
        let vector = (self.shared.irq >> 1).trailing_zeros() as u8 + 1;
        if self.sleeping {
            self.cycles += IRQ_WAKE_CYCLES;
            self.set_sleep(false);
        }
        let ret = self.pc;
        self.push_pc::<false>(ret);
        self.sreg &= !flags::I;
        self.pc = vector as u32 * 2;
        let now = self.cycles;
        self.cycles += IRQ_ENTRY_CYCLES;
        let owner = self.vector_owner[vector as usize];
        if owner == OWNER_NONE {
            // Nobody can clear it: drop the request instead of looping forever.
            self.shared.irq &= !(1 << vector);
            self.shared.warnings.push(crate::peripheral::Warning {
                cycle: now,
                pc: Some(ret),
                source: "core",
                message: format!("interrupt {vector} requested but no peripheral owns it; dropped"),
            });
            return;
        }
        let i = owner as usize;
        let p = &mut self.periphs[i];
        let mut cx = self.shared.ctx(now, ret);
        p.acknowledge(vector, &mut cx);
        self.next_event[i] = p.update(&mut cx);
        self.next_min = self.next_min.min(self.next_event[i]);
    }

    /// Enters (SMCR.SE set) or leaves sleep, telling the peripherals.
    pub(crate) fn set_sleep(&mut self, asleep: bool) {
        let mode = if asleep {
            match (self.data[reg::SMCR as usize] >> 1) & 7 {
                0 => Sleep::Idle,
                1 => Sleep::AdcNoiseReduction,
                2 => Sleep::PowerDown,
                3 => Sleep::PowerSave,
                6 => Sleep::Standby,
                7 => Sleep::ExtendedStandby,
                m => {
                    let message = format!("reserved sleep mode {m} in SMCR; treated as Idle");
                    self.shared.warnings.push(crate::peripheral::Warning {
                        cycle: self.cycles,
                        pc: Some(self.pc),
                        source: "core",
                        message,
                    });
                    Sleep::Idle
                }
            }
        } else {
            Sleep::Awake
        };
        self.sleeping = asleep;
        self.shared.sleep = mode;
        let now = self.cycles;
        let pc = self.pc;
        for (i, p) in self.periphs.iter_mut().enumerate() {
            let mut cx = self.shared.ctx(now, pc);
            p.sleep_changed(&mut cx);
            self.next_event[i] = p.update(&mut cx);
        }
        self.next_min = self.next_event.iter().copied().min().unwrap_or(NEVER);
        self.attention = 0;
    }

    /// The SLEEP instruction (PC already points past it).
    pub(crate) fn sleep_instruction(&mut self) {
        let enabled = self.sreg & flags::I != 0;
        if self.stop_on_sleep && !enabled {
            self.set_stop(Stop::Sleeping { pc: self.pc, interrupts_enabled: false });
            return;
        }
        if self.data[reg::SMCR as usize] & 1 != 0 {
            self.set_sleep(true);
        }
    }

    /// The chip-wide reset: peripherals, CPU registers, PC and SP.
    pub(crate) fn reset_chip(&mut self, cause: ResetCause) {
        let flag = match cause {
            ResetCause::PowerOn => mcusr::PORF,
            ResetCause::External => mcusr::EXTRF,
            ResetCause::BrownOut => mcusr::BORF,
            ResetCause::Watchdog => mcusr::WDRF,
        };
        self.shared.mcusr = if cause == ResetCause::PowerOn { flag } else { self.shared.mcusr | flag };
        self.data[..0x100].fill(0);
        self.sreg = 0;
        self.sp = RAMEND;
        self.pc = 0;
        self.sleeping = false;
        self.irq_inhibit = false;
        self.pending_stop = None;
        self.shared.sleep = Sleep::Awake;
        self.shared.irq = 0;
        self.shared.reset = None;
        self.shared.stall = 0;
        self.spm_buffer.fill(0xFF);
        self.debug.min_sp = RAMEND;
        self.debug.collided = false;
        let now = self.cycles;
        for p in self.periphs.iter_mut() {
            p.reset(&mut self.shared.ctx(now, 0));
        }
        self.shared.reset = None;
        for port in 0..crate::peripheral::PORTS {
            self.shared.pins.settle(port, now);
        }
        self.update_all();
        self.attention = 0;
    }

    /// Next event of the watchdog (the owner of WDTCSR), if there is one.
    fn watchdog_next_event(&self) -> u64 {
        match self.watchdog_index() {
            Some(i) => self.next_event[i],
            None => NEVER,
        }
    }

    fn watchdog_index(&self) -> Option<usize> {
        const WDTCSR: u16 = 0x60;
        let owner = self.io_owner[(WDTCSR - crate::device::IO_START) as usize] as usize;
        (owner < self.periphs.len()).then_some(owner)
    }

    /// The WDR instruction: tell the watchdog (the owner of WDTCSR).
    pub(crate) fn watchdog_reset(&mut self) {
        if let Some(i) = self.watchdog_index() {
            let p = &mut self.periphs[i];
            let mut cx = self.shared.ctx(self.cycles, self.pc);
            p.watchdog_reset(&mut cx);
            self.next_event[i] = p.update(&mut cx);
            self.next_min = self.next_min.min(self.next_event[i]);
            self.attention = 0;
        }
    }

    /// An undefined opcode: stop with the PC at it.
    #[cold]
    pub(crate) fn undefined(&mut self, word: u16) {
        let fault = Fault { pc: self.pc, word, kind: FaultKind::UndefinedOpcode };
        self.set_stop(Stop::Fault(fault));
    }
}
