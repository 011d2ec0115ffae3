//! The four push buttons (MENU, UP, DOWN, ENTER), active low.
//!
//! A pressed button shorts its pin to ground; a released one drives nothing,
//! so the pin shows the chip's pull-up. [`Buttons`] keeps, per button, the
//! cycles at which it is pressed and released (from a [`KeyScript`] or from
//! [`Buttons::press`]/[`Buttons::release`] calls), optionally adds contact
//! bounce after each edge, and answers for any cycle what to drive on the
//! button pins and when that next changes.
//!
//! # Key scripts
//!
//! A script is a list of statements separated by newlines or `;`. `#` starts
//! a comment that runs to the end of the line.
//!
//! ```text
//! # time            action   button  [duration]
//! at 0.5s           press    UP
//! 600ms             release  UP      # "at" is optional
//! +1s               tap      ENTER   # 1 s after the previous statement
//! at 2s tap MENU 300ms; at 3s hold DOWN 2s
//! ```
//!
//! * Time: a decimal number with unit `s`, `ms` or `us`, counted from power-on
//!   (cycle 0), or with a leading `+` counted from the previous statement's
//!   time. Statements must be in time order.
//! * Actions: `press` and `release`; `tap` presses and releases after the
//!   duration (default 100 ms); `hold` is `tap` with a required duration.
//! * Buttons: `MENU`, `UP`, `DOWN`, `ENTER`, in any case.
//!
//! Pressing a pressed button or releasing a released one is an error, as is
//! anything unparsable; errors name the line.

use std::fmt;
use std::str::FromStr;

use firmware::board::Button;

use super::{ns_to_cycles, PortDrive, PORTS};

/// Duration of a `tap` without an explicit one.
const DEFAULT_TAP_NS: u64 = 100_000_000;

/// One change of a button in a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptStep {
    /// Nanoseconds after power-on.
    pub at_ns: u64,
    pub button: Button,
    pub pressed: bool,
    /// Line of the statement that caused it.
    pub line: usize,
}

/// A parsed key script: button changes in time order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyScript {
    steps: Vec<ScriptStep>,
}

/// Why a key script was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    /// 1-based line of the offending statement.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "key script line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ScriptError {}

impl FromStr for KeyScript {
    type Err = ScriptError;

    fn from_str(text: &str) -> Result<KeyScript, ScriptError> {
        KeyScript::parse(text)
    }
}

impl KeyScript {
    /// Parses the format described in the module documentation.
    pub fn parse(text: &str) -> Result<KeyScript, ScriptError> {
        let mut steps = Vec::new();
        let mut previous = 0u64;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let code = raw.split('#').next().unwrap_or("");
            for statement in code.split(';').map(str::trim).filter(|s| !s.is_empty()) {
                let err = |message: String| ScriptError { line, message };
                let at = parse_statement(statement, previous, line, &mut steps).map_err(err)?;
                previous = at;
            }
        }
        // Taps put their releases ahead of later statements: sort, then
        // check that each button alternates between pressed and released.
        steps.sort_by_key(|s| s.at_ns);
        let mut pressed_at: [Option<usize>; 4] = [None; 4];
        for s in &steps {
            let b = s.button as usize;
            let name = s.button.name();
            match (s.pressed, pressed_at[b]) {
                (true, Some(l)) => {
                    let message = format!("{name} is already pressed (by line {l})");
                    return Err(ScriptError {
                        line: s.line,
                        message,
                    });
                }
                (false, None) => {
                    let message = format!(
                        "{name} is released at {} but is not pressed then",
                        show_ns(s.at_ns)
                    );
                    return Err(ScriptError {
                        line: s.line,
                        message,
                    });
                }
                (true, None) => pressed_at[b] = Some(s.line),
                (false, Some(_)) => pressed_at[b] = None,
            }
        }
        Ok(KeyScript { steps })
    }

    pub fn steps(&self) -> &[ScriptStep] {
        &self.steps
    }
}

/// Parses one statement, appends its steps and returns its time.
fn parse_statement(
    s: &str,
    previous: u64,
    line: usize,
    steps: &mut Vec<ScriptStep>,
) -> Result<u64, String> {
    let mut words = s.split_whitespace().peekable();
    if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("at")) {
        words.next();
    }
    let usage = || format!("expected `[at] TIME ACTION BUTTON [DURATION]`, found {s:?}");
    let time = words.next().ok_or_else(usage)?;
    let at = match time.strip_prefix('+') {
        Some(rel) => previous + parse_duration(rel)?,
        None => parse_duration(time)?,
    };
    if at < previous {
        return Err(format!(
            "time {} is before the previous statement's {}",
            show_ns(at),
            show_ns(previous)
        ));
    }
    let action = words.next().ok_or_else(usage)?.to_ascii_lowercase();
    let button = parse_button(words.next().ok_or_else(usage)?)?;
    let duration = words.next().map(parse_duration).transpose()?;
    if let Some(extra) = words.next() {
        return Err(format!("unexpected {extra:?} after the statement"));
    }
    let mut step = |at_ns, pressed| {
        steps.push(ScriptStep {
            at_ns,
            button,
            pressed,
            line,
        })
    };
    match (action.as_str(), duration) {
        ("press", None) => step(at, true),
        ("release", None) => step(at, false),
        ("press" | "release", Some(_)) => {
            return Err(format!(
                "`{action}` takes no duration (use `tap` or `hold`)"
            ))
        }
        ("hold", None) => return Err("`hold` needs a duration, e.g. `hold ENTER 2s`".into()),
        ("tap" | "hold", d) => {
            let d = d.unwrap_or(DEFAULT_TAP_NS);
            if d == 0 {
                return Err(format!("a {action} needs a duration above zero"));
            }
            step(at, true);
            step(at + d, false);
        }
        _ => {
            return Err(format!(
                "unknown action {action:?} (expected press, release, tap or hold)"
            ))
        }
    }
    Ok(at)
}

fn parse_button(word: &str) -> Result<Button, String> {
    Button::ALL
        .into_iter()
        .find(|b| b.name().eq_ignore_ascii_case(word))
        .ok_or_else(|| {
            let names: Vec<_> = Button::ALL.iter().map(|b| b.name()).collect();
            format!(
                "unknown button {word:?} (expected one of {})",
                names.join(", ")
            )
        })
}

/// Parses `1.5s`, `200ms`, `300us` into nanoseconds, exactly.
fn parse_duration(word: &str) -> Result<u64, String> {
    let bad = || {
        format!("bad time {word:?} (expected a number with unit s, ms or us, like 1.5s or 200ms)")
    };
    let split = word
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(bad)?;
    let (number, unit) = word.split_at(split);
    let scale: u64 = match unit {
        "s" => 1_000_000_000,
        "ms" => 1_000_000,
        "us" | "µs" => 1_000,
        _ => return Err(bad()),
    };
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if int.is_empty() && frac.is_empty() {
        return Err(bad());
    }
    let int: u64 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| bad())?
    };
    // Fraction digits beyond nanoseconds would be lost: refuse them.
    let mut frac_ns = 0u64;
    let mut unit_ns = scale;
    for c in frac.chars() {
        let d = c.to_digit(10).ok_or_else(bad)? as u64;
        unit_ns /= 10;
        if unit_ns == 0 && d != 0 {
            return Err(format!("time {word:?} is finer than a nanosecond"));
        }
        frac_ns += d * unit_ns;
    }
    int.checked_mul(scale)
        .and_then(|n| n.checked_add(frac_ns))
        .ok_or_else(|| format!("time {word:?} is too large"))
}

fn show_ns(ns: u64) -> String {
    format!("{}ms", ns as f64 / 1e6)
}

/// Contact bounce: after each edge the contact chatters for `duration_ns`,
/// with intervals drawn from a generator seeded by `seed`, the button and
/// the edge's cycle, so a run is repeatable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounce {
    pub duration_ns: u64,
    pub seed: u64,
}

impl Bounce {
    pub fn ms(ms: u64) -> Bounce {
        Bounce {
            duration_ns: ms * 1_000_000,
            seed: 0x5EED,
        }
    }
}

/// Whether a button is held, and since when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ButtonState {
    Released,
    /// Held since this cycle.
    Pressed(u64),
}

/// The four buttons over time.
#[derive(Clone, Debug)]
pub struct Buttons {
    clock_hz: u32,
    bounce: Option<Bounce>,
    /// Per button: the cycles at which it is pressed (true) or released,
    /// sorted, alternating.
    edges: [Vec<(u64, bool)>; 4],
    /// Per button: the contact's changes including bounce, derived from
    /// `edges`; what the pin actually sees.
    contact: [Vec<(u64, bool)>; 4],
}

impl Buttons {
    /// All released, no bounce.
    pub fn new(clock_hz: u32) -> Buttons {
        Buttons {
            clock_hz,
            bounce: None,
            edges: Default::default(),
            contact: Default::default(),
        }
    }

    /// Buttons that follow `script`.
    pub fn from_script(clock_hz: u32, script: &KeyScript) -> Buttons {
        let mut b = Buttons::new(clock_hz);
        b.load_script(script);
        b
    }

    /// Adds the script's presses and releases to what is already planned.
    pub fn load_script(&mut self, script: &KeyScript) {
        for s in script.steps() {
            let cycle = ns_to_cycles(s.at_ns, self.clock_hz);
            self.edges[s.button as usize].push((cycle, s.pressed));
        }
        for b in Button::ALL {
            self.normalise(b);
        }
    }

    /// Turns contact bounce on or off.
    pub fn set_bounce(&mut self, bounce: Option<Bounce>) {
        self.bounce = bounce;
        for b in Button::ALL {
            self.derive_contact(b);
        }
    }

    /// Presses `button` at `cycle` (the GUI's mouse down).
    pub fn press(&mut self, button: Button, cycle: u64) {
        self.edges[button as usize].push((cycle, true));
        self.normalise(button);
    }

    /// Releases `button` at `cycle`.
    pub fn release(&mut self, button: Button, cycle: u64) {
        self.edges[button as usize].push((cycle, false));
        self.normalise(button);
    }

    /// The button as the user holds it (before bounce).
    pub fn state(&self, button: Button, cycle: u64) -> ButtonState {
        match latest(&self.edges[button as usize], cycle) {
            Some((since, true)) => ButtonState::Pressed(since),
            _ => ButtonState::Released,
        }
    }

    /// Whether the contact is closed at `cycle`, bounce included.
    pub fn contact_closed(&self, button: Button, cycle: u64) -> bool {
        matches!(
            latest(&self.contact[button as usize], cycle),
            Some((_, true))
        )
    }

    /// Per button (in [`Button`] order): `Some(false)` when its contact pulls
    /// the pin low, `None` when it leaves the pin alone.
    pub fn pin_levels(&self, cycle: u64) -> [Option<bool>; 4] {
        Button::ALL.map(|b| self.contact_closed(b, cycle).then_some(false))
    }

    /// [`Self::pin_levels`] as levels to drive onto each port (0 = A).
    pub fn drive(&self, cycle: u64) -> [PortDrive; PORTS] {
        let mut drive = [PortDrive::default(); PORTS];
        for b in Button::ALL {
            if self.contact_closed(b, cycle) {
                drive[b.pin().port.index()].drive(b.pin(), false);
            }
        }
        drive
    }

    /// The first cycle after `cycle` at which any pin level changes, so the
    /// runner can stop the emulator exactly there.
    pub fn next_change(&self, cycle: u64) -> Option<u64> {
        self.contact
            .iter()
            .filter_map(|c| {
                c.get(c.partition_point(|&(t, _)| t <= cycle))
                    .map(|&(t, _)| t)
            })
            .min()
    }

    /// Sorts a button's edges (stable, so same-cycle calls keep their
    /// order), drops the ones that change nothing, and rederives bounce.
    fn normalise(&mut self, button: Button) {
        let edges = &mut self.edges[button as usize];
        edges.sort_by_key(|&(t, _)| t);
        let mut state = false;
        let mut kept: Vec<(u64, bool)> = Vec::with_capacity(edges.len());
        for &(t, pressed) in edges.iter() {
            if kept.last().is_some_and(|&(lt, _)| lt == t) {
                // Two changes in one cycle: the later one wins.
                kept.pop();
                state = kept.last().is_some_and(|&(_, p)| p);
            }
            if pressed != state {
                kept.push((t, pressed));
                state = pressed;
            }
        }
        *edges = kept;
        self.derive_contact(button);
    }

    fn derive_contact(&mut self, button: Button) {
        let edges = &self.edges[button as usize];
        let mut out: Vec<(u64, bool)> = Vec::with_capacity(edges.len());
        let mut push = |t: u64, closed: bool| {
            let level = out.last().is_some_and(|&(_, c)| c);
            if level != closed {
                out.push((t, closed));
            }
        };
        for (i, &(t, pressed)) in edges.iter().enumerate() {
            push(t, pressed);
            let Some(bounce) = self.bounce else { continue };
            let window = ns_to_cycles(bounce.duration_ns, self.clock_hz);
            let settled = t + window;
            let end = edges
                .get(i + 1)
                .map_or(settled, |&(next, _)| next.min(settled));
            // Chatter: intervals of 1/20..1/5 of the window, so a few to a
            // few tens of toggles.
            let mut rng = SplitMix(bounce.seed ^ (button as u64) << 56 ^ t);
            let (lo, span) = ((window / 20).max(1), (window / 5 - window / 20).max(1));
            let (mut at, mut closed) = (t, pressed);
            loop {
                at += lo + rng.next() % span;
                if at >= end {
                    break;
                }
                closed = !closed;
                push(at, closed);
            }
            if end == settled {
                push(settled, pressed);
            }
        }
        self.contact[button as usize] = out;
    }
}

/// The last change at or before `cycle`.
fn latest(changes: &[(u64, bool)], cycle: u64) -> Option<(u64, bool)> {
    let n = changes.partition_point(|&(t, _)| t <= cycle);
    n.checked_sub(1).map(|i| changes[i])
}

/// SplitMix64: tiny, deterministic, good enough for chatter.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ z >> 30).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ z >> 27).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ z >> 31
    }
}

#[cfg(test)]
mod tests;
