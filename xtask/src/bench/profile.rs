//! `cargo xtask bench engine --profile`: where the search's cycles go.
//!
//! While profiling, the emulator runs one instruction at a time and charges
//! the cycles each one took to its PC ([`PcProfile`], filled by
//! [`crate::rig::Rig::go_profiled`]). Here the PCs are attributed to the
//! functions of the ELF's symbol table (sized symbols: the range
//! `[address, address + size)`), and for one function to its source lines
//! with `avr-addr2line`.
//!
//! Approximations: a call count is the number of executions of a
//! function's first instruction (a loop back to it counts again); the
//! cycles of an interrupt's entry are charged to the instruction before it
//! (the vector's `jmp` to the vector table, outside any sized symbol; the
//! handler to itself); a sleeping CPU's cycles to the instruction after its
//! SLEEP.

use crate::util::{have, root, Result};
use emulator::device::FLASH_WORDS;
use emulator::loader::{Space, SymbolKind, Symbols};
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

/// Cycles and executions per flash word address. Empty (`Default`) until
/// [`PcProfile::new`].
#[derive(Clone, Debug, Default)]
pub struct PcProfile {
    cycles: Vec<u64>,
    runs: Vec<u64>,
}

impl PcProfile {
    pub fn new() -> PcProfile {
        PcProfile { cycles: vec![0; FLASH_WORDS], runs: vec![0; FLASH_WORDS] }
    }

    /// One execution of the instruction at word address `pc` that took `cycles`.
    #[inline]
    pub fn charge(&mut self, pc: u32, cycles: u64) {
        let pc = pc as usize % FLASH_WORDS;
        self.cycles[pc] += cycles;
        self.runs[pc] += 1;
    }

    pub fn total(&self) -> u64 {
        self.cycles.iter().sum()
    }
}

/// A function of the ELF: byte address and size in flash, demangled name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub address: u32,
    pub size: u32,
}

impl Function {
    fn contains(&self, byte_address: u32) -> bool {
        byte_address >= self.address && byte_address - self.address < self.size
    }
}

/// The sized code symbols of flash (progmem tables, `OBJECT`s, are left
/// out), one per range, sorted by address.
pub fn functions(symbols: &Symbols) -> Vec<Function> {
    let mut fns: Vec<Function> = symbols
        .symbols
        .iter()
        .filter(|s| s.space == Space::Flash && s.size > 0 && s.kind != SymbolKind::Object)
        .map(|s| Function { name: format!("{:#}", rustc_demangle::demangle(&s.name)), address: s.address, size: s.size })
        .collect();
    fns.sort_by_key(|f| (f.address, std::cmp::Reverse(f.size)));
    fns.dedup_by_key(|f| f.address);
    fns
}

/// What one function cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cost {
    /// Demangled name, or [`OUTSIDE`].
    pub name: String,
    pub cycles: u64,
    /// Executions of the first instruction.
    pub calls: u64,
}

/// The bucket of PCs that no sized symbol covers.
pub const OUTSIDE: &str = "(outside any sized symbol)";

/// Per-function costs of `profile`, most cycles first (functions that never
/// ran are left out).
pub fn attribute(profile: &PcProfile, functions: &[Function]) -> Vec<Cost> {
    let mut costs: Vec<Cost> = functions.iter().map(|f| Cost { name: f.name.clone(), cycles: 0, calls: 0 }).collect();
    let mut outside = Cost { name: OUTSIDE.to_string(), cycles: 0, calls: 0 };
    for (pc, &cycles) in profile.cycles.iter().enumerate() {
        if cycles == 0 {
            continue;
        }
        let byte = pc as u32 * 2;
        // The last function starting at or before `byte`.
        let i = functions.partition_point(|f| f.address <= byte);
        match i.checked_sub(1).filter(|&i| functions[i].contains(byte)) {
            Some(i) => {
                costs[i].cycles += cycles;
                if functions[i].address == byte {
                    costs[i].calls += profile.runs[pc];
                }
            }
            None => outside.cycles += cycles,
        }
    }
    costs.push(outside);
    costs.retain(|c| c.cycles > 0);
    costs.sort_by(|a, b| b.cycles.cmp(&a.cycles).then_with(|| a.name.cmp(&b.name)));
    costs
}

/// The crates of this workspace, whose names only add width.
const OWN_CRATES: [&str; 2] = ["firmware::", "prodigy::"];

/// A demangled name made short: generic arguments dropped, `<T>::f`
/// unwrapped to `T::f`, `<T as path::Trait>` to `<T as Trait>`, this
/// workspace's crate names stripped, and at most `width` characters (the
/// end kept): `<firmware::engine::picker::Picker>::next` becomes
/// `engine::picker::Picker::next`.
pub fn short_name(name: &str, width: usize) -> String {
    // Generic arguments: a `<` after an identifier or `::` (a qualified
    // path's `<` starts the name or follows a space or another `<`).
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    let mut prev = ' ';
    for c in name.chars() {
        let arrow = prev == '-';
        prev = c;
        if depth > 0 {
            match c {
                '<' => depth += 1,
                '>' if !arrow => depth -= 1,
                _ => {}
            }
            continue;
        }
        let generic = c == '<' && out.chars().last().is_some_and(|p| p.is_alphanumeric() || p == '_' || p == ':');
        if generic {
            depth = 1;
            if out.ends_with("::") {
                out.truncate(out.len() - 2);
            }
        } else {
            out.push(c);
        }
    }
    // `<T>::f` (an inherent method) reads as `T::f`; `<T as Trait>::f` stays.
    if let Some(rest) = out.strip_prefix('<') {
        if let Some(end) = rest.find(">::") {
            if !rest[..end].contains(' ') {
                out = format!("{}{}", &rest[..end], &rest[end + 1..]);
            }
        }
    }
    // `<T as core::iter::traits::iterator::Iterator>`: the trait's last segment says enough.
    if let Some(at) = out.find(" as ") {
        let trait_start = at + 4;
        if let Some(len) = out[trait_start..].find('>') {
            if let Some(last) = out[trait_start..trait_start + len].rsplit("::").next() {
                out = format!("{}{}{}", &out[..trait_start], last, &out[trait_start + len..]);
            }
        }
    }
    for krate in OWN_CRATES {
        out = out.replace(krate, "");
    }
    let chars: Vec<char> = out.chars().collect();
    if chars.len() <= width {
        out
    } else {
        let tail: String = chars[chars.len() - (width - 1)..].iter().collect();
        format!("…{tail}")
    }
}

/// Width of the function column.
const NAME_WIDTH: usize = 70;

/// The table of the `top` costliest functions.
pub fn table(costs: &[Cost], top: usize) -> String {
    let total: u64 = costs.iter().map(|c| c.cycles).sum();
    let mut s = String::new();
    let _ = writeln!(s, "  {:>6} {:>12} {:>10} {:>9}  function", "%", "cycles", "calls", "cyc/call");
    for c in costs.iter().take(top) {
        let per_call = if c.calls > 0 { format!("{:.0}", c.cycles as f64 / c.calls as f64) } else { "-".to_string() };
        let _ = writeln!(
            s,
            "  {:>5.2}% {:>12} {:>10} {:>9}  {}",
            100.0 * c.cycles as f64 / total.max(1) as f64,
            c.cycles,
            c.calls,
            per_call,
            short_name(&c.name, NAME_WIDTH)
        );
    }
    let rest: u64 = costs.iter().skip(top).map(|c| c.cycles).sum();
    if rest > 0 {
        let _ = writeln!(
            s,
            "  {:>5.2}% {:>12} {:>10} {:>9}  ({} other functions)",
            100.0 * rest as f64 / total.max(1) as f64,
            rest,
            "",
            "",
            costs.len() - top
        );
    }
    s
}

/// The functions whose demangled name, or short name as in the table,
/// contains `needle`.
pub fn matching<'a>(functions: &'a [Function], needle: &str) -> Vec<&'a Function> {
    functions.iter().filter(|f| f.name.contains(needle) || short_name(&f.name, usize::MAX).contains(needle)).collect()
}

/// What maps addresses to source lines (binutils-avr).
const TOOL: &str = "avr-addr2line";

/// An error unless [`source_lines`] can run.
pub fn need_addr2line() -> Result {
    if have(TOOL) {
        Ok(())
    } else {
        Err(format!("{TOOL} is not on PATH: --profile-lines needs it (Debian/Ubuntu: apt-get install binutils-avr)"))
    }
}

/// Cycles per source line of `function` (from `avr-addr2line` on `elf`),
/// most cycles first, at most `top` lines.
pub fn source_lines(profile: &PcProfile, function: &Function, elf: &Path, top: usize) -> Result<String> {
    need_addr2line()?;
    let first = function.address / 2;
    let pcs: Vec<u32> = (first..first + function.size.div_ceil(2)).filter(|&pc| profile.cycles[pc as usize % FLASH_WORDS] > 0).collect();
    let own: u64 = pcs.iter().map(|&pc| profile.cycles[pc as usize]).sum();
    let mut s = String::new();
    let _ = writeln!(s, "  {} ({} cycles):", short_name(&function.name, NAME_WIDTH), own);
    if pcs.is_empty() {
        return Ok(s);
    }
    let out = Command::new(TOOL)
        .arg("-e")
        .arg(elf)
        .args(pcs.iter().map(|pc| format!("{:#x}", pc * 2)))
        .output()
        .map_err(|e| format!("cannot run {TOOL}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{TOOL} failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr).trim()));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let locations: Vec<&str> = text.lines().collect();
    if locations.len() != pcs.len() {
        return Err(format!("{TOOL} gave {} lines for {} addresses", locations.len(), pcs.len()));
    }
    // "file:line" or "file:line (discriminator n)"; "??:0" when unknown.
    let mut per_line: HashMap<&str, u64> = HashMap::new();
    for (&pc, loc) in pcs.iter().zip(&locations) {
        let loc = loc.split(" (").next().unwrap_or(loc);
        let loc = if loc.ends_with(":?") || loc.ends_with(":0") { NO_LINE } else { loc };
        *per_line.entry(loc).or_default() += profile.cycles[pc as usize];
    }
    let mut lines: Vec<(&str, u64)> = per_line.into_iter().collect();
    lines.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let root = format!("{}/", root().display());
    for &(loc, cycles) in lines.iter().take(top) {
        let shown = loc.strip_prefix(root.as_str()).unwrap_or(loc);
        let shown = shown.rsplit_once("/library/").map_or(shown, |(_, rest)| rest);
        let line = format!("  {:>5.1}% {:>12}  {:<40} {}", 100.0 * cycles as f64 / own.max(1) as f64, cycles, shown, source_text(loc));
        let _ = writeln!(s, "{}", line.trim_end());
    }
    if lines.len() > top {
        let _ = writeln!(s, "  ({} more lines)", lines.len() - top);
    }
    Ok(s)
}

/// The disassembler of [`instructions`].
const OBJDUMP: &str = "avr-objdump";

pub fn need_objdump() -> Result {
    if have(OBJDUMP) {
        Ok(())
    } else {
        Err(format!("{OBJDUMP} is not on PATH: --profile-pcs needs it (Debian/Ubuntu: apt-get install binutils-avr)"))
    }
}

/// Every instruction of `function` (from `avr-objdump -d` on `elf`) with
/// its executions and cycles, in address order: the cost inside an
/// assembly block, which the source lines show as one line.
pub fn instructions(profile: &PcProfile, function: &Function, elf: &Path) -> Result<String> {
    need_objdump()?;
    let out = Command::new(OBJDUMP)
        .arg("-d")
        .arg(format!("--start-address={:#x}", function.address))
        .arg(format!("--stop-address={:#x}", function.address + function.size))
        .arg(elf)
        .output()
        .map_err(|e| format!("cannot run {OBJDUMP}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{OBJDUMP} failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr).trim()));
    }
    let first = function.address / 2;
    let own: u64 = (first..first + function.size.div_ceil(2)).map(|pc| profile.cycles[pc as usize % FLASH_WORDS]).sum();
    let mut s = String::new();
    let _ = writeln!(s, "  {} ({} cycles)     runs     cycles  address: instruction", short_name(&function.name, NAME_WIDTH), own);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut listed = 0;
    for line in text.lines() {
        let Some((address, instruction)) = objdump_instruction(line) else { continue };
        let pc = (address / 2) as usize % FLASH_WORDS;
        let (runs, cycles) = (profile.runs[pc], profile.cycles[pc]);
        let share = 100.0 * cycles as f64 / own.max(1) as f64;
        let _ = writeln!(s, "  {share:>5.1}% {runs:>12} {cycles:>10}  {address:>6x}: {instruction}");
        listed += 1;
    }
    if listed == 0 {
        return Err(format!("{OBJDUMP} listed no instruction of {} in {}", function.name, elf.display()));
    }
    Ok(s)
}

/// The byte address and text of an instruction line of `avr-objdump -d`
/// ("    1a2c:\t0f 93       \tpush\tr16"); `None` for any other line.
fn objdump_instruction(line: &str) -> Option<(u32, String)> {
    let mut fields = line.splitn(3, '\t');
    let (address, _bytes, instruction) = (fields.next()?, fields.next()?, fields.next()?);
    let address = u32::from_str_radix(address.trim().strip_suffix(':')?, 16).ok()?;
    Some((address, instruction.replace('\t', " ").trim_end().to_string()))
}

/// Where avr-addr2line knows no line (code the debug info does not cover).
const NO_LINE: &str = "(no line info)";

/// The trimmed text of `file:line`, cut to 50 characters; empty if unreadable.
fn source_text(location: &str) -> String {
    let Some((file, line)) = location.rsplit_once(':') else { return String::new() };
    let Ok(n) = line.parse::<usize>() else { return String::new() };
    let Ok(text) = std::fs::read_to_string(file) else { return String::new() };
    let line = text.lines().nth(n.wrapping_sub(1)).unwrap_or("").trim();
    line.chars().take(50).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, address: u32, size: u32) -> Function {
        Function { name: name.to_string(), address, size }
    }

    #[test]
    fn cycles_go_to_the_function_whose_range_holds_the_pc() {
        // Byte ranges: a [0x100, 0x110), b [0x110, 0x120), a gap, c [0x200, 0x204).
        let fns = [f("a", 0x100, 0x10), f("b", 0x110, 0x10), f("c", 0x200, 4)];
        let mut p = PcProfile::new();
        // a: entered twice (word 0x80), plus a loop body.
        p.charge(0x80, 2);
        p.charge(0x80, 2);
        p.charge(0x87, 5); // the last word of a
        // b: its last word, never its entry.
        p.charge(0x8f, 7);
        // The gap, before the first function, and past the last one.
        p.charge(0x90, 11);
        p.charge(0x10, 13);
        p.charge(0x102, 17);
        // c: entered once.
        p.charge(0x100, 3);
        let costs = attribute(&p, &fns);
        let by_name = |n: &str| costs.iter().find(|c| c.name == n).cloned();
        assert_eq!(by_name("a"), Some(Cost { name: "a".into(), cycles: 9, calls: 2 }));
        assert_eq!(by_name("b"), Some(Cost { name: "b".into(), cycles: 7, calls: 0 }));
        assert_eq!(by_name("c"), Some(Cost { name: "c".into(), cycles: 3, calls: 1 }));
        assert_eq!(by_name(OUTSIDE).map(|c| c.cycles), Some(11 + 13 + 17));
        assert_eq!(costs.iter().map(|c| c.cycles).sum::<u64>(), p.total());
        // Most cycles first.
        assert_eq!(costs.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), [OUTSIDE, "a", "b", "c"]);
    }

    #[test]
    fn objdump_lines_give_address_and_instruction_and_nothing_else() {
        assert_eq!(objdump_instruction("    9e9e:\t6a 2f       \tmov\tr22, r26"), Some((0x9e9e, "mov r22, r26".to_string())));
        assert_eq!(
            objdump_instruction("    9eca:\t19 ce       \trjmp\t.-560     \t; 0x9c9c <f+0x44>"),
            Some((0x9eca, "rjmp .-560      ; 0x9c9c <f+0x44>".to_string()))
        );
        assert_eq!(objdump_instruction("00009c58 <see_avr>:"), None);
        assert_eq!(objdump_instruction("Disassembly of section .text:"), None);
        assert_eq!(objdump_instruction(""), None);
    }

    #[test]
    fn functions_that_never_ran_are_left_out() {
        let mut p = PcProfile::new();
        p.charge(0x80, 4);
        let costs = attribute(&p, &[f("a", 0x100, 2), f("idle", 0x102, 2)]);
        assert_eq!(costs, vec![Cost { name: "a".into(), cycles: 4, calls: 1 }]);
    }

    #[test]
    fn functions_match_by_full_or_short_name() {
        let fns = [f("<firmware::engine::picker::Picker>::next", 0, 2), f("<firmware::engine::picker::Picker>::next_capture", 2, 2)];
        let names = |needle| matching(&fns, needle).iter().map(|f| f.address).collect::<Vec<_>>();
        assert_eq!(names("Picker::next_capture"), [2]);
        assert_eq!(names("<firmware::engine::picker::Picker>::next"), [0, 2]);
        assert_eq!(names("Position"), [0u32; 0]);
    }

    #[test]
    fn names_lose_generics_hashes_and_own_crates() {
        assert_eq!(short_name("<firmware::engine::picker::Picker>::next", 70), "engine::picker::Picker::next");
        assert_eq!(
            short_name("<firmware::engine::search::Searcher<dyn firmware::engine::search::SearchHost>>::qsearch::<prodigy::Board>", 70),
            "engine::search::Searcher::qsearch"
        );
        assert_eq!(
            short_name("<firmware::chess::movegen::MoveGen as core::iter::traits::iterator::Iterator>::next", 70),
            "<chess::movegen::MoveGen as Iterator>::next"
        );
        assert_eq!(short_name("__mulsi3", 70), "__mulsi3");
        assert_eq!(short_name("core::ops::function::FnOnce::call_once::<fn() -> u8>", 70), "core::ops::function::FnOnce::call_once");
        assert_eq!(short_name("firmware::engine::eval::dynamic", 10), "…::dynamic");
        // rustc-demangle's alternate form drops legacy `::h…` hashes.
        let legacy = format!("{:#}", rustc_demangle::demangle("_ZN8firmware6engine4eval7dynamic17h0123456789abcdefE"));
        assert_eq!(short_name(&legacy, 70), "engine::eval::dynamic");
    }
}
