//! The chess computer on the desk: the emulated ATmega644 with its LCD,
//! buttons and buzzer wired to the pins of `firmware::board`.
//!
//! Every front end (the window, `board-sim run`, the UCI bridge, the tests)
//! drives the board through this one type.

use crate::parts::{Buttons, Buzzer, Hd44780, KeyScript, LcdWarning};
use emulator::avr::{Avr, Config, RunLimit, Stop};
use emulator::loader::Program;
use emulator::peripheral::PORTS;
use firmware::board::{self, Button};
use std::path::Path;

pub struct Board {
    pub avr: Avr,
    pub program: Program,
    pub lcd: Hd44780,
    pub buttons: Buttons,
    pub buzzer: Buzzer,
    /// What the parts drove onto the chip's pins last time (to apply changes only).
    driven: [(u8, u8); PORTS],
}

impl Board {
    /// Loads an ELF file; errors are one clear line.
    pub fn from_elf_file(path: &Path, clock_hz: u32) -> Result<Board, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Board::from_elf(&bytes, clock_hz).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn from_elf(bytes: &[u8], clock_hz: u32) -> Result<Board, String> {
        let mut avr = Avr::new(Config { clock_hz: clock_hz as u64, ..Config::default() });
        let program = avr.load_elf(bytes).map_err(|e| e.to_string())?;
        // The LCD answers reads while E is high: stop right after E changes.
        avr.watch_pins(board::LCD_E.port.index(), board::LCD_E.mask());
        let mut b = Board {
            avr,
            program,
            lcd: Hd44780::new(clock_hz),
            buttons: Buttons::new(clock_hz),
            buzzer: Buzzer::new(clock_hz),
            driven: [(0, 0); PORTS],
        };
        b.apply_drives();
        Ok(b)
    }

    pub fn clock_hz(&self) -> u32 {
        self.avr.config().clock_hz as u32
    }

    pub fn load_key_script(&mut self, script: &KeyScript) {
        self.buttons.load_script(script);
    }

    pub fn press(&mut self, button: Button) {
        self.buttons.press(button, self.avr.cycles());
        self.apply_drives();
    }

    pub fn release(&mut self, button: Button) {
        self.buttons.release(button, self.avr.cycles());
        self.apply_drives();
    }

    /// Runs until the cycle counter reaches `end` or something stops the CPU
    /// (breakpoint, fault, sleep with interrupts off, ...). Parts see every
    /// pin change with its cycle stamp; button scripts act at their exact
    /// cycle.
    pub fn run_until(&mut self, end: u64) -> Stop {
        let mut first = true;
        loop {
            let now = self.avr.cycles();
            if now >= end {
                return Stop::CycleLimit;
            }
            // `Avr::run` lets the first instruction pass a breakpoint (to
            // continue from one): only the first of the slices below may.
            let pc = self.avr.pc();
            if !first && !self.avr.is_sleeping() && self.avr.is_breakpoint(pc) {
                return Stop::Breakpoint(pc);
            }
            first = false;
            let mut until = end;
            if let Some(c) = self.buttons.next_change(now) {
                until = until.min(c.max(now + 1));
            }
            if let Some(c) = self.lcd.next_bus_change(now) {
                until = until.min(c.max(now + 1));
            }
            let stop = self.avr.run(RunLimit::UntilCycle(until));
            self.sync();
            match stop {
                Stop::CycleLimit | Stop::PinChange => continue,
                other => return other,
            }
        }
    }

    /// Runs `cycles` more cycles (see [`Board::run_until`]).
    pub fn run_for(&mut self, cycles: u64) -> Stop {
        let end = self.avr.cycles().saturating_add(cycles);
        self.run_until(end)
    }

    /// Executes one instruction (see [`Avr::step`]: a pending interrupt is
    /// taken first, a sleeping CPU sleeps to its next event) and lets the
    /// parts see what it did. For debuggers.
    pub fn step(&mut self) -> Stop {
        let stop = self.avr.step();
        self.sync();
        stop
    }

    /// Hands the chip's pin changes to the parts and drives their answers back.
    fn sync(&mut self) {
        for ev in self.avr.drain_pin_events() {
            self.lcd.port_changed(ev.cycle, ev.port, ev.levels, None);
            self.buzzer.port_changed(ev.cycle, ev.port, ev.levels);
        }
        self.apply_drives();
    }

    fn apply_drives(&mut self) {
        let now = self.avr.cycles();
        let lcd = self.lcd.bus_drive(now);
        let keys = self.buttons.drive(now);
        for port in 0..PORTS {
            let mask = lcd[port].mask | keys[port].mask;
            let levels = (lcd[port].levels & lcd[port].mask) | (keys[port].levels & keys[port].mask);
            let (old_mask, old_levels) = self.driven[port];
            for bit in 0..8u8 {
                let m = 1 << bit;
                let was = (old_mask & m != 0).then_some(old_levels & m != 0);
                let now_level = (mask & m != 0).then_some(levels & m != 0);
                if was != now_level {
                    self.avr.set_input(port, bit, now_level);
                }
            }
            self.driven[port] = (mask, levels);
        }
    }

    /// The two visible LCD lines.
    pub fn lcd_text(&self) -> [String; 2] {
        self.lcd.text()
    }

    pub fn lcd_warnings(&self) -> &[LcdWarning] {
        self.lcd.warnings()
    }
}
