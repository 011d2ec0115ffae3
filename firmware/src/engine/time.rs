//! Search limits and the time manager.
//!
//! Three kinds of timing:
//! * fixed: `movetime_ms`, or a CP1 level 0..=9 (2 s, 5 s, 15 s, 30 s, 1 min,
//!   2 min, 3 min, 5 min, 15 min per move, infinite);
//! * tournament: remaining time, increments and moves to go (0 = sudden
//!   death), allocated per move;
//! * none: depth / nodes limits, infinite analysis and pondering.
//!
//! Two deadlines are derived: `soft` (no new iteration is started after it)
//! and `hard` (the running iteration is abandoned; the best move found so far
//! is played). `hard` always leaves a reserve of the remaining time, so the
//! engine never forfeits. All arithmetic here runs once per search.

use crate::chess::Color;
use crate::progmem::Table;

crate::progmem! {
    /// Seconds per move of CP1's levels 0..=9; 0 = infinite.
    pub static LEVEL_SECONDS: [u16; 10] = [2, 5, 15, 30, 60, 120, 180, 300, 900, 0];
}

/// Keeps `Table` in the public signature of the re-export.
pub type LevelTable = Table<u16, 10>;

/// Allowance for the host's latency between the engine's answer and the
/// clock being stopped (move output, LCD), in milliseconds.
pub const MOVE_OVERHEAD_MS: u32 = 30;

/// What to search for how long. All zero / false = search until stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// Maximum iteration depth (0 = none).
    pub depth: u8,
    /// Node budget (0 = none).
    pub nodes: u32,
    /// Fixed time for this move (0 = none).
    pub movetime_ms: u32,
    /// CP1 level 0..=9 (fixed time per move); `None` = not used.
    pub level: Option<u8>,
    pub wtime_ms: u32,
    pub btime_ms: u32,
    pub winc_ms: u32,
    pub binc_ms: u32,
    /// Moves to the next time control (0 = sudden death).
    pub movestogo: u8,
    /// Analyse until stopped.
    pub infinite: bool,
    /// Think on the opponent's time: untimed until the host reports a ponder
    /// hit, then timed by the other fields from that moment.
    pub ponder: bool,
}

impl SearchLimits {
    pub const fn new() -> SearchLimits {
        SearchLimits {
            depth: 0,
            nodes: 0,
            movetime_ms: 0,
            level: None,
            wtime_ms: 0,
            btime_ms: 0,
            winc_ms: 0,
            binc_ms: 0,
            movestogo: 0,
            infinite: false,
            ponder: false,
        }
    }

    pub const fn depth(d: u8) -> SearchLimits {
        let mut l = SearchLimits::new();
        l.depth = d;
        l
    }

    pub const fn nodes(n: u32) -> SearchLimits {
        let mut l = SearchLimits::new();
        l.nodes = n;
        l
    }

    pub const fn movetime(ms: u32) -> SearchLimits {
        let mut l = SearchLimits::new();
        l.movetime_ms = ms;
        l
    }

    pub const fn level(level: u8) -> SearchLimits {
        let mut l = SearchLimits::new();
        l.level = Some(level);
        l
    }

    /// Tournament clock (`movestogo` 0 = sudden death).
    pub const fn clock(wtime: u32, btime: u32, winc: u32, binc: u32, movestogo: u8) -> SearchLimits {
        let mut l = SearchLimits::new();
        l.wtime_ms = wtime;
        l.btime_ms = btime;
        l.winc_ms = winc;
        l.binc_ms = binc;
        l.movestogo = movestogo;
        l
    }

    pub const fn infinite() -> SearchLimits {
        let mut l = SearchLimits::new();
        l.infinite = true;
        l
    }

    /// Was a time limit given (the engine may then answer a forced move at once)?
    pub fn is_timed(&self) -> bool {
        !self.infinite
            && (self.movetime_ms > 0
                || self.level.is_some()
                || self.wtime_ms > 0
                || self.btime_ms > 0)
    }
}

/// The time manager's state for one search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    pub start: u32,
    /// Milliseconds after `start`: no new iteration after `soft`, abort at `hard`.
    pub soft: u32,
    pub hard: u32,
    pub timed: bool,
    pub pondering: bool,
}

impl Clock {
    pub const fn new() -> Clock {
        Clock {
            start: 0,
            soft: u32::MAX,
            hard: u32::MAX,
            timed: false,
            pondering: false,
        }
    }

    /// Allocates the time of this move.
    pub fn begin(&mut self, now: u32, limits: &SearchLimits, side: Color) {
        self.start = now;
        self.pondering = limits.ponder;
        let (soft, hard) = allocate(limits, side);
        self.timed = hard != u32::MAX;
        self.soft = soft;
        self.hard = hard;
    }

    #[inline]
    pub fn elapsed(&self, now: u32) -> u32 {
        now.wrapping_sub(self.start)
    }

    /// The running iteration must be abandoned.
    #[inline]
    pub fn hard_exceeded(&self, now: u32) -> bool {
        self.timed && !self.pondering && self.elapsed(now) >= self.hard
    }

    /// No new iteration should be started.
    pub fn soft_exceeded(&self, now: u32) -> bool {
        self.timed && !self.pondering && self.elapsed(now) >= self.soft
    }

    /// The opponent played the expected move: the clock starts now.
    pub fn ponder_hit(&mut self, now: u32) {
        self.pondering = false;
        self.start = now;
    }
}

/// (soft, hard) in milliseconds after the start; `u32::MAX` = untimed.
pub fn allocate(limits: &SearchLimits, side: Color) -> (u32, u32) {
    if limits.infinite {
        return (u32::MAX, u32::MAX);
    }
    let fixed = if limits.movetime_ms > 0 {
        limits.movetime_ms
    } else if let Some(level) = limits.level {
        let secs = LEVEL_SECONDS.get(if level > 9 { 9 } else { level } as usize) as u32;
        if secs == 0 {
            return (u32::MAX, u32::MAX);
        }
        secs * 1000
    } else {
        0
    };
    if fixed > 0 {
        let hard = fixed.saturating_sub(MOVE_OVERHEAD_MS).max(1);
        // The time is the move's anyway: a new iteration is begun however
        // late. It rarely finishes, but its first root moves (the main line,
        // then the captures and checks) may still improve the answer.
        return (hard, hard);
    }
    let (time, inc) = match side {
        Color::White => (limits.wtime_ms, limits.winc_ms),
        Color::Black => (limits.btime_ms, limits.binc_ms),
    };
    if time == 0 {
        return (u32::MAX, u32::MAX);
    }
    // Keep a reserve: the overhead plus 1/32 of the clock.
    let usable = time.saturating_sub(MOVE_OVERHEAD_MS + time / 32).max(1);
    let moves = if limits.movestogo > 0 {
        (limits.movestogo as u32).min(50)
    } else {
        30
    };
    let base = usable / moves + inc / 4 * 3;
    let hard_cap = if moves == 1 { usable } else { usable / 3 };
    let hard = (base * 3).min(hard_cap).max(1);
    let soft = (base / 2).min(hard);
    (soft, hard)
}
