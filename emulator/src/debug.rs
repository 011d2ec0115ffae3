//! Breakpoints, data watchpoints and the stack watch.
//!
//! Breakpoints and watchpoints make [`crate::avr::Avr::run`] take its slow
//! path (one instruction at a time, with checks); without any the hot loop
//! never looks at this module. The stack watch is cheap enough to be always
//! on: it is consulted only when SP reaches a new minimum.

use crate::device::{DATA_SIZE, FLASH_WORDS, RAMEND};
use std::ops::RangeInclusive;

/// Which accesses a watchpoint reacts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WatchKind {
    Read,
    Write,
    ReadWrite,
}

impl WatchKind {
    fn mask(self) -> u8 {
        match self {
            WatchKind::Read => READ,
            WatchKind::Write => WRITE,
            WatchKind::ReadWrite => READ | WRITE,
        }
    }
}

/// The kind of one data access that hit a watchpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
}

const READ: u8 = 1;
const WRITE: u8 = 2;

/// A data watchpoint: a range of data-space addresses and the accesses
/// that trigger it. Accesses by the data bus count: loads, stores, I/O
/// instructions, and the stack (PUSH/POP/CALL/RET/interrupts). Operands of
/// ALU instructions do not, even though registers are memory mapped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watchpoint {
    pub range: RangeInclusive<u16>,
    pub kind: WatchKind,
}

/// All debugging state of one machine.
#[derive(Clone, Debug)]
pub struct Debug {
    breakpoints: Vec<bool>,
    breakpoint_count: usize,
    watchpoints: Vec<Watchpoint>,
    /// Per data-space address: READ/WRITE bits of the watchpoints covering it.
    watch_map: Vec<u8>,
    /// A watchpoint hit during the current instruction.
    pub(crate) hit: Option<(u16, Access)>,
    /// Lowest SP seen since reset.
    pub(crate) min_sp: u16,
    /// SP below this is a stack collision (0 = no check).
    pub(crate) stack_limit: u16,
    /// Set once a collision was reported, so it is reported once per reset.
    pub(crate) collided: bool,
}

impl Default for Debug {
    fn default() -> Self {
        Debug {
            breakpoints: vec![false; FLASH_WORDS],
            breakpoint_count: 0,
            watchpoints: Vec::new(),
            watch_map: vec![0; DATA_SIZE],
            hit: None,
            min_sp: RAMEND,
            stack_limit: 0,
            collided: false,
        }
    }
}

impl Debug {
    /// True if anything needs a check after every instruction.
    #[inline]
    pub fn active(&self) -> bool {
        self.breakpoint_count != 0 || !self.watchpoints.is_empty()
    }

    /// Adds a breakpoint at word address `pc`; returns false if it was set.
    pub fn add_breakpoint(&mut self, pc: u32) -> bool {
        let slot = &mut self.breakpoints[pc as usize % FLASH_WORDS];
        let added = !*slot;
        *slot = true;
        self.breakpoint_count += added as usize;
        added
    }

    /// Removes the breakpoint at `pc`; returns false if there was none.
    pub fn remove_breakpoint(&mut self, pc: u32) -> bool {
        let slot = &mut self.breakpoints[pc as usize % FLASH_WORDS];
        let removed = *slot;
        *slot = false;
        self.breakpoint_count -= removed as usize;
        removed
    }

    pub fn is_breakpoint(&self, pc: u32) -> bool {
        self.breakpoints[pc as usize % FLASH_WORDS]
    }

    /// Word addresses of all breakpoints, ascending.
    pub fn breakpoints(&self) -> Vec<u32> {
        (0..FLASH_WORDS as u32).filter(|&pc| self.breakpoints[pc as usize]).collect()
    }

    pub fn clear_breakpoints(&mut self) {
        self.breakpoints.fill(false);
        self.breakpoint_count = 0;
    }

    /// Adds a watchpoint; addresses beyond the data space are ignored.
    pub fn add_watchpoint(&mut self, wp: Watchpoint) {
        self.watchpoints.push(wp);
        self.rebuild_watch_map();
    }

    /// Removes every watchpoint equal to `wp`; returns whether any was.
    pub fn remove_watchpoint(&mut self, wp: &Watchpoint) -> bool {
        let before = self.watchpoints.len();
        self.watchpoints.retain(|w| w != wp);
        self.rebuild_watch_map();
        before != self.watchpoints.len()
    }

    pub fn watchpoints(&self) -> &[Watchpoint] {
        &self.watchpoints
    }

    pub fn clear_watchpoints(&mut self) {
        self.watchpoints.clear();
        self.rebuild_watch_map();
    }

    fn rebuild_watch_map(&mut self) {
        self.watch_map.fill(0);
        for wp in &self.watchpoints {
            let end = (*wp.range.end() as usize).min(DATA_SIZE - 1);
            for addr in *wp.range.start() as usize..=end {
                self.watch_map[addr] |= wp.kind.mask();
            }
        }
    }

    /// Records a data access; the first hit of an instruction is kept.
    #[inline]
    pub(crate) fn check(&mut self, addr: u16, access: Access) {
        let bit = match access {
            Access::Read => READ,
            Access::Write => WRITE,
        };
        if self.hit.is_none() && self.watch_map.get(addr as usize).is_some_and(|m| m & bit != 0) {
            self.hit = Some((addr, access));
        }
    }
}
