//! A worst-case stack bound computed from the ELF alone, without running it.
//!
//! Each function is followed along its control flow from its entry with a
//! small abstract interpreter that knows the stack depth (bytes below the
//! SP the function was entered with) and, per register, whether it holds a
//! constant or a byte of "SP minus something". That covers every way the
//! compilers here move SP:
//!
//! * `PUSH`/`POP` (register saves, and `push r1`-style allocations),
//! * `RCALL .+0` (avr-gcc allocates 2 bytes this way),
//! * `IN r28,0x3D; IN r29,0x3E; SBIW r28,N` (or `SUBI r28,lo; SBCI r29,hi`,
//!   or `SUB/SBC` with constants) followed by `OUT 0x3E,r29 ... OUT 0x3D,r28`,
//! * avr-gcc's `-mcall-prologues`: the jump into `__prologue_saves__` is
//!   followed as part of the function (its pushes and `SUB/SBC r28,r26`
//!   frame are counted) and its `IJMP` back through the constant Z resumes
//!   the caller; `__epilogue_restores__` likewise.
//!
//! The function's frame is the deepest point reached; every `CALL`/`RCALL`
//! costs its depth plus the 2-byte return address (16-bit PC) plus the
//! callee's bound; `JMP`/`RJMP` to another function's entry is a tail call
//! (no return address). Interrupt handlers cost their 2-byte return address
//! plus their bound, on top of the deepest main path; all of them together
//! if one of them (or anything it calls) executes `SEI` (nesting), else the
//! deepest one. `ICALL`/`IJMP` through an unknown pointer and call-graph
//! cycles make the bound infinite unless declared (see [`Declarations`]).
//! A call through a vtable slot reaches that slot of every vtable and every
//! other function pointer of `.data` or made in code: read from the ELF's
//! relocations when it carries them (the firmware is linked with
//! `--emit-relocs`), else guessed from values (see [`CodeRelocations`]).

use emulator::cpu::decode::{decode, Instr};
use emulator::loader::{Program, Space, SymbolKind};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

const RAMEND: i32 = 0x10FF;
/// A depth beyond this means the stack grows in a loop.
const DEPTH_LIMIT: i32 = 0x1000;

/// What the firmware declares about its call graph, read from
/// `assets/stack_targets.txt` and `assets/stack_recursion.txt`. One
/// directive a line, `#` starts a comment, names are substrings of the
/// demangled (hash-free) or raw symbol names:
///
/// ```text
/// indirect <caller> -> <target> [<target> ...]
/// recursion <function> <max-depth>
/// ```
///
/// `indirect`: every `ICALL`/`IJMP` through an unknown pointer in a function
/// matching `<caller>` may reach any function matching one of the targets.
/// `recursion`: at most `<max-depth>` activations of functions matching
/// `<function>` are on the stack at once (1 = it never recurses); every
/// call-graph cycle must pass through such a function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declarations {
    pub indirect: Vec<(String, Vec<String>)>,
    /// `(patterns, max-depth)`: the patterns are comma-separated and share
    /// one counter (the activations of all the functions they match).
    pub recursion: Vec<(String, u32)>,
    /// The max-depth of each `recursion` line as written (`MAX_PLY-1`).
    pub recursion_text: Vec<String>,
}

/// `N`, `NAME`, `NAME+N` or `NAME-N`, the names from `consts`.
fn depth_expr(text: &str, consts: &[(&str, u32)]) -> Result<u32, String> {
    if let Ok(n) = text.parse::<u32>() {
        return Ok(n);
    }
    let (name, off) = match text.find(['+', '-']) {
        Some(i) => {
            let n: i64 = text[i + 1..].parse().map_err(|_| format!("`{}` is not a number", &text[i + 1..]))?;
            (&text[..i], if text.as_bytes()[i] == b'+' { n } else { -n })
        }
        None => (text, 0),
    };
    let Some(&(_, v)) = consts.iter().find(|c| c.0 == name) else {
        let known: Vec<&str> = consts.iter().map(|c| c.0).collect();
        return Err(format!("max-depth `{text}` is not a number nor NAME[+-N] of a known constant ({})", known.join(", ")));
    };
    u32::try_from(v as i64 + off).map_err(|_| format!("max-depth `{text}` = {} is negative", v as i64 + off))
}

impl Declarations {
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn parse(text: &str, origin: &str) -> Result<Declarations, String> {
        Self::parse_with(text, origin, &[])
    }

    /// Like [`Declarations::parse`], with named constants for the
    /// max-depths (`recursion search MAX_PLY-1`).
    pub fn parse_with(text: &str, origin: &str, consts: &[(&str, u32)]) -> Result<Declarations, String> {
        let mut d = Declarations::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let err = |m: &str| format!("{origin}:{}: {m}: `{line}`", i + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            match words[0] {
                "recursion" => {
                    if words.len() != 3 || words[1].split(',').any(str::is_empty) {
                        return Err(err("expected `recursion <function>[,<function>...] <max-depth>`"));
                    }
                    let n = depth_expr(words[2], consts).map_err(|e| err(&e))?;
                    if n == 0 {
                        return Err(err("max-depth must be at least 1"));
                    }
                    d.recursion.push((words[1].to_string(), n));
                    d.recursion_text.push(words[2].to_string());
                }
                "indirect" => {
                    if words.len() < 4 || words[2] != "->" {
                        return Err(err("expected `indirect <caller> -> <target> [<target> ...]`"));
                    }
                    d.indirect.push((words[1].to_string(), words[3..].iter().map(|s| s.to_string()).collect()));
                }
                _ => return Err(err("unknown directive (expected `indirect` or `recursion`)")),
            }
        }
        Ok(d)
    }

    pub fn merge(&mut self, other: Declarations) {
        self.indirect.extend(other.indirect);
        self.recursion.extend(other.recursion);
        self.recursion_text.extend(other.recursion_text);
    }
}

/// A stack bound: bytes, or why there is none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    Finite(u32),
    Infinite(String),
}

impl Bound {
    pub fn finite(&self) -> Option<u32> {
        match self {
            Bound::Finite(n) => Some(*n),
            Bound::Infinite(_) => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// `CALL`/`RCALL`/`ICALL`: 2 bytes of return address.
    Call,
    /// `JMP`/`RJMP`/`IJMP` into another function.
    Tail,
}

/// A place where a function leaves for another one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// Byte address of the instruction.
    pub pc: u32,
    /// Stack depth of the caller at that point (before the return address).
    pub depth: u32,
    pub kind: EdgeKind,
    /// Byte address of the callee; `None` for an `ICALL`/`IJMP` through a
    /// pointer that is not a constant.
    pub target: Option<u32>,
    /// For such a call: Z is the word at displacement `slot` of a pointer
    /// read unmodified from memory (or passed in), as in a call through a
    /// trait object's vtable (`ldd r30,Z+slot; ldd r31,Z+slot+1`).
    pub slot: Option<u8>,
}

/// A vtable found in `.data`: data address, symbol name, and (offset,
/// function) of each function pointer in it.
pub type Vtable = (u32, String, Vec<(u8, u32)>);

/// An `ICALL`/`IJMP` through a pointer and what it may reach.
#[derive(Clone, Debug)]
pub struct Indirect {
    pub caller: String,
    pub pc: u32,
    pub slot: Option<u8>,
    pub targets: Vec<u32>,
    /// Some targets come from `assets/stack_targets.txt`.
    pub declared: bool,
}

/// One function as the analysis saw it.
#[derive(Clone, Debug)]
pub struct Function {
    /// Byte address of the entry.
    #[allow(dead_code)]
    pub entry: u32,
    pub name: String,
    /// Deepest stack use of the function's own code (pushes and frame).
    pub frame: u32,
    pub sites: Vec<Site>,
    /// Executes `SEI`.
    pub sei: bool,
    /// Function entries the code loads as constants (`ldi` pairs): pointers
    /// to functions made in code.
    pub fn_constants: BTreeSet<u32>,
    /// Why the function's own frame cannot be bounded (unknown SP writes...).
    pub problems: Vec<String>,
    /// Notes that do not break the bound.
    pub notes: Vec<String>,
}

/// One step of a worst path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub name: String,
    pub entry: u32,
    pub frame: u32,
    /// Depth of this function when it calls the next one (`None` for the last).
    pub call_depth: Option<u32>,
    /// How the next one is entered.
    pub via: Option<EdgeKind>,
}

/// A root of the call graph: the reset vector or an interrupt handler.
#[derive(Clone, Debug)]
pub struct Root {
    pub vector: u8,
    pub vector_name: String,
    pub entry: u32,
    /// Bytes pushed before the root's code runs (2 for an interrupt).
    pub entry_cost: u32,
    /// Including `entry_cost`.
    pub bound: Bound,
    pub path: Vec<Step>,
}

pub struct Analysis {
    pub functions: BTreeMap<u32, Function>,
    pub roots: Vec<Root>,
    /// Interrupt handlers may nest (one of them reaches an `SEI`).
    pub nested_interrupts: bool,
    /// Names of the functions that call or jump through a pointer.
    #[allow(dead_code)]
    pub indirect_callers: Vec<String>,
    /// Every call or jump through a pointer, with its possible targets.
    pub indirect: Vec<Indirect>,
    /// The vtables found in `.data`: address, name, (offset, function).
    pub vtables: Vec<Vtable>,
    /// Function pointers in `.data` outside the vtables: (address, function).
    pub loose_pointers: Vec<(u32, u32)>,
    /// Function entries loaded as constants by the code.
    pub code_pointers: Vec<u32>,
    /// Where the function pointers (vtables, loose, made in code) come
    /// from: the ELF's relocations, or guessed from values (and why).
    pub pointer_source: String,
    /// Each `recursion` declaration (`pattern <= n (expr)`) and the
    /// functions it matches.
    pub recursion: Vec<(String, Vec<String>)>,
    /// Call-graph cycles (function names), declared or not.
    pub cycles: Vec<Vec<String>>,
    /// Deepest main path plus the interrupts on top of it.
    pub total: Bound,
}

impl Analysis {
    #[allow(dead_code)]
    pub fn reset(&self) -> Option<&Root> {
        self.roots.iter().find(|r| r.vector == 0)
    }

    /// A readable report: the verdict, the roots with their worst paths.
    pub fn report(&self) -> String {
        let mut s = String::new();
        let b = |b: &Bound| match b {
            Bound::Finite(n) => format!("{n} B"),
            Bound::Infinite(why) => format!("unbounded ({why})"),
        };
        let _ = writeln!(s, "  static stack bound: {}", b(&self.total));
        let _ = writeln!(
            s,
            "    = reset path + {} (interrupts {})",
            if self.nested_interrupts { "every interrupt handler" } else { "the deepest interrupt handler" },
            if self.nested_interrupts { "may nest: a handler reaches SEI" } else { "do not nest: no handler reaches SEI" }
        );
        for r in &self.roots {
            let _ = writeln!(s, "  {:<28} {}", format!("vector {:2} {}", r.vector, r.vector_name), b(&r.bound));
            if !r.path.is_empty() {
                let _ = writeln!(s, "      worst path: {}", format_path(r));
            }
        }
        let fname = |a: &u32| self.functions.get(a).map(|f| short(&f.name)).unwrap_or_else(|| format!("{a:#06x}"));
        let _ = writeln!(s, "  function pointers: {}", self.pointer_source);
        for (addr, name, slots) in &self.vtables {
            let slots: Vec<String> = slots.iter().map(|(o, t)| format!("+{o} {}", fname(t))).collect();
            let _ = writeln!(s, "  vtable {name} at {addr:#06x}: {}", slots.join(", "));
        }
        for (addr, t) in &self.loose_pointers {
            let _ = writeln!(s, "  function pointer in .data at {addr:#06x}: {}", fname(t));
        }
        if !self.code_pointers.is_empty() {
            let names: Vec<String> = self.code_pointers.iter().map(fname).collect();
            let _ = writeln!(s, "  function pointers made in code: {}", names.join(", "));
        }
        for i in &self.indirect {
            let how = match (i.slot, i.declared) {
                (Some(o), false) => format!("vtable slot +{o}"),
                (Some(o), true) => format!("vtable slot +{o} and declared"),
                (None, true) => "declared".to_string(),
                (None, false) => "unresolved".to_string(),
            };
            let targets: Vec<String> = i.targets.iter().map(fname).collect();
            let _ = writeln!(
                s,
                "  indirect call at {:#06x} in {} ({how}): {}",
                i.pc,
                short(&i.caller),
                if targets.is_empty() { "no known target".to_string() } else { targets.join(", ") }
            );
        }
        for (decl, matched) in &self.recursion {
            let _ = writeln!(
                s,
                "  recursion {decl}: {}",
                if matched.is_empty() { "matches no function (stale?)".to_string() } else { matched.join(", ") }
            );
        }
        for c in &self.cycles {
            let _ = writeln!(s, "  call-graph cycle: {}", c.join(" -> "));
        }
        // What may make the bound wrong: returns at a non-zero depth,
        // undefined opcodes on a path (falling into the next function after
        // a call that does not return is normal and not listed).
        for f in self.functions.values() {
            for n in f.notes.iter().filter(|n| n.starts_with("returns") || n.starts_with("undefined")) {
                let _ = writeln!(s, "  note: {}: {n}", short(&f.name));
            }
        }
        s
    }
}

/// `a [frame 4] -call@6-> b [frame 12] -> ...`
pub fn format_path(r: &Root) -> String {
    let mut s = String::new();
    if r.entry_cost > 0 {
        let _ = write!(s, "(+{} B interrupt return address) ", r.entry_cost);
    }
    let mut i = 0;
    while i < r.path.len() {
        let st = &r.path[i];
        // A run of the same step (recursion) is written once with a count.
        let run = r.path[i..].iter().take_while(|o| *o == st).count();
        i += run;
        if !s.is_empty() && !s.ends_with(' ') {
            s.push(' ');
        }
        if run > 1 {
            let _ = write!(s, "{run} x ");
        }
        let _ = write!(s, "{} [frame {}]", short(&st.name), st.frame);
        if let (Some(d), Some(via)) = (st.call_depth, st.via) {
            match via {
                EdgeKind::Call => {
                    let _ = write!(s, " -call@{d}+2->");
                }
                EdgeKind::Tail => {
                    let _ = write!(s, " -jmp@{d}->");
                }
            }
        }
    }
    s
}

/// The last two path segments of a demangled name (`lcd::Lcd::flush`).
pub fn short(name: &str) -> String {
    let parts: Vec<&str> = name.split("::").collect();
    if parts.len() > 3 {
        parts[parts.len() - 3..].join("::")
    } else {
        name.to_string()
    }
}

pub fn demangle(name: &str) -> String {
    format!("{:#}", rustc_demangle::demangle(name))
}

/// The code addresses the ELF's relocations make (the firmware is linked
/// with `-Wl,--emit-relocs`): which words of the data image and which
/// `ldi` instructions hold a code address, whatever their values. Read
/// from these, a function pointer is one by construction, not because its
/// value happens to equal a function's word address (a FEN string's "pp"
/// in `.data` once read as a pointer to `key_analyze` at 0x7070).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeRelocations {
    /// Data address -> byte address of the code: the words relocated with
    /// `R_AVR_16_PM` (`.word pm(f)`, `gs(f)`), LLVM's and avr-gcc's
    /// function pointers in `.data`.
    pub data: BTreeMap<u32, u32>,
    /// Flash byte address of an `ldi` -> byte address of the code whose
    /// word address it loads a byte of (`R_AVR_LO8/HI8_LDI_PM`, avr-gcc's
    /// `_GS`): a function pointer made in code.
    pub ldi: BTreeMap<u32, u32>,
}

/// Where the analysis takes the function pointers of `.data` and of the
/// code from.
#[derive(Clone, Copy, Debug)]
pub enum Pointers<'a> {
    /// The ELF's relocations: exact.
    Relocated(&'a CodeRelocations),
    /// Guessed from the values of words and `ldi` pairs (an ELF linked
    /// without `--emit-relocs`), with the reason.
    Guessed(&'a str),
}

/// The relocations of `elf` that make code addresses (see
/// [`CodeRelocations`]), or why there are none to use: the ELF was linked
/// without `--emit-relocs` (no relocation applies to its code), or one of
/// them disagrees with the bytes it relocates (then none is trusted).
pub fn read_code_relocations(elf: &[u8]) -> Result<CodeRelocations, String> {
    use object::elf::{
        R_AVR_16_PM, R_AVR_HI8_LDI_GS, R_AVR_HI8_LDI_PM, R_AVR_LO8_LDI_GS, R_AVR_LO8_LDI_PM, SHF_ALLOC, SHF_EXECINSTR,
    };
    use object::read::elf::ElfFile32;
    use object::{LittleEndian, Object, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget, SectionFlags};
    const DATA_BASE: u64 = 0x80_0000;
    let file = ElfFile32::<LittleEndian>::parse(elf).map_err(|e| format!("the ELF does not parse: {e}"))?;
    let mut out = CodeRelocations::default();
    let mut code_relocated = false;
    for sec in file.sections() {
        let flags = match sec.flags() {
            SectionFlags::Elf { sh_flags } => sh_flags,
            _ => 0,
        };
        if flags & SHF_ALLOC as u64 == 0 {
            continue;
        }
        let (start, bytes) = (sec.address(), sec.data().unwrap_or(&[]));
        for (at, r) in sec.relocations() {
            code_relocated |= flags & SHF_EXECINSTR as u64 != 0;
            let RelocationFlags::Elf { r_type } = r.flags() else { continue };
            if ![R_AVR_16_PM, R_AVR_LO8_LDI_PM, R_AVR_HI8_LDI_PM, R_AVR_LO8_LDI_GS, R_AVR_HI8_LDI_GS].contains(&r_type) {
                continue;
            }
            let RelocationTarget::Symbol(i) = r.target() else { continue };
            let sym = file.symbol_by_index(i).map_err(|e| format!("relocation at {at:#x}: {e}"))?;
            let target = (sym.address() as i64 + r.addend()) as u64;
            let Some(off) = at.checked_sub(start).map(|o| o as usize).filter(|&o| o + 2 <= bytes.len()) else {
                continue;
            };
            let word = u16::from_le_bytes([bytes[off], bytes[off + 1]]);
            let expect = (target / 2) as u16;
            // What the linker wrote there must be what the relocation says.
            let (ok, written) = if r_type == R_AVR_16_PM {
                (word == expect, word)
            } else {
                // `ldi`: 1110 KKKK dddd KKKK.
                let k = ((word >> 4) & 0xF0) | (word & 0x0F);
                let lo = matches!(r_type, R_AVR_LO8_LDI_PM | R_AVR_LO8_LDI_GS);
                let byte = if lo { expect & 0xFF } else { expect >> 8 };
                (word & 0xF000 == 0xE000 && k == byte, k)
            };
            if !ok {
                return Err(format!(
                    "the relocation (type {r_type}) at {at:#x} to {target:#x} disagrees with the image ({written:#06x})"
                ));
            }
            if r_type == R_AVR_16_PM {
                if (DATA_BASE..DATA_BASE + 0x1_0000).contains(&at) {
                    out.data.insert((at - DATA_BASE) as u32, target as u32);
                }
            } else {
                out.ldi.insert(at as u32, target as u32);
            }
        }
    }
    if !code_relocated {
        return Err("the ELF carries no relocations (linked without -Wl,--emit-relocs)".into());
    }
    Ok(out)
}

/// Analyses a loaded program.
pub fn analyse(program: &Program, pointers: Pointers, decl: &Declarations) -> Analysis {
    let cx = Context::new(program, pointers);
    let mut functions: BTreeMap<u32, Function> = BTreeMap::new();

    // Roots: the reset vector and every vector that does not go to
    // `__bad_interrupt` (which jumps to 0: a reset, not a handler).
    let mut roots = Vec::new();
    let bad = cx.symbol_address("__bad_interrupt");
    for v in 0..cx.vector_count {
        let at = v * 4;
        let target = match cx.instr(at / 2) {
            Instr::Jmp { hi, k } => Instr::long_target(hi, k) * 2,
            Instr::Rjmp { k } => cx.rel(at / 2, k as i32) * 2,
            _ => continue,
        };
        if v > 0 && (Some(target) == bad || target == 0) {
            continue;
        }
        let vector_name = emulator::device::vector_name(v as u8).unwrap_or("?").to_string();
        let vector_name = match cx.name_at(target) {
            Some(n) if v > 0 => format!("{vector_name} ({n})"),
            _ => vector_name,
        };
        roots.push(Root {
            vector: v as u8,
            vector_name,
            entry: target,
            entry_cost: if v == 0 { 0 } else { 2 },
            bound: Bound::Finite(0),
            path: Vec::new(),
        });
    }

    // Every function reachable from the roots. The targets of a call
    // through a vtable slot include the function pointers made in code,
    // which are only known once the code is read: repeat until they stop
    // growing.
    let mut queue: Vec<u32> = roots.iter().map(|r| r.entry).collect();
    let mut code_pointers: BTreeSet<u32> = BTreeSet::new();
    loop {
        while let Some(entry) = queue.pop() {
            if functions.contains_key(&entry) {
                continue;
            }
            let f = analyse_function(&cx, entry);
            for site in &f.sites {
                match site.target {
                    Some(t) => queue.push(t),
                    None => queue.extend(resolve(&cx, decl, &f, site, &code_pointers).0),
                }
            }
            functions.insert(entry, f);
        }
        // A root is entered by the hardware only: the reset entry never
        // returns and a handler ends in RETI, so code never calls one
        // through a pointer. A constant equal to a root's word address
        // (App::search's 0x1000 once `__init` sat at 0x2000) is a number.
        let now: BTreeSet<u32> = functions
            .values()
            .flat_map(|f| f.fn_constants.iter().copied())
            .filter(|a| !roots.iter().any(|r| r.entry == *a))
            .collect();
        if now == code_pointers {
            break;
        }
        code_pointers = now;
        for f in functions.values() {
            for site in f.sites.iter().filter(|s| s.target.is_none()) {
                queue.extend(resolve(&cx, decl, f, site, &code_pointers).0);
            }
        }
    }
    let mut indirect = Vec::new();
    let mut resolved: HashMap<u32, Vec<u32>> = HashMap::new();
    for f in functions.values() {
        for site in f.sites.iter().filter(|s| s.target.is_none()) {
            let (targets, declared) = resolve(&cx, decl, f, site, &code_pointers);
            resolved.insert(site.pc, targets.clone());
            indirect.push(Indirect { caller: f.name.clone(), pc: site.pc, slot: site.slot, targets, declared });
        }
    }

    let indirect_callers: Vec<String> = functions
        .values()
        .filter(|f| f.sites.iter().any(|s| s.target.is_none()))
        .map(|f| f.name.clone())
        .collect();
    let callees = |site: &Site| -> Vec<u32> {
        match site.target {
            Some(t) => vec![t],
            None => resolved.get(&site.pc).cloned().unwrap_or_default(),
        }
    };

    let mut solver =
        Solver { cx: &cx, functions: &functions, decl, callees: &callees, memo: HashMap::new(), on_stack: HashSet::new() };
    let counters: Vec<u32> = decl.recursion.iter().map(|r| r.1).collect();
    for r in roots.iter_mut() {
        match solver.enter(r.entry, &counters) {
            Some(c) => match solver.bound(r.entry, c) {
                Ok(n) => {
                    r.bound = Bound::Finite(n + r.entry_cost);
                    r.path = solver.path(r.entry, &counters);
                }
                Err(why) => r.bound = Bound::Infinite(why),
            },
            None => r.bound = Bound::Finite(r.entry_cost),
        }
    }

    // Nesting: does any handler reach SEI?
    let reach = |from: u32| -> BTreeSet<u32> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(f) = stack.pop() {
            if !seen.insert(f) {
                continue;
            }
            if let Some(func) = functions.get(&f) {
                for s in &func.sites {
                    stack.extend(callees(s));
                }
            }
        }
        seen
    };
    let nested_interrupts = roots
        .iter()
        .filter(|r| r.vector > 0)
        .any(|r| reach(r.entry).iter().any(|f| functions.get(f).is_some_and(|f| f.sei)));

    let cycles = find_cycles(&functions, &callees);

    let total = {
        let reset = roots.iter().find(|r| r.vector == 0).map(|r| r.bound.clone()).unwrap_or(Bound::Finite(0));
        let isrs: Vec<&Root> = roots.iter().filter(|r| r.vector > 0).collect();
        let mut acc = reset;
        let mut isr_part: u32 = 0;
        for r in &isrs {
            match (&r.bound, &acc) {
                (Bound::Infinite(why), Bound::Finite(_)) => {
                    acc = Bound::Infinite(format!("vector {} {}: {why}", r.vector, r.vector_name))
                }
                (Bound::Finite(n), _) => {
                    isr_part = if nested_interrupts { isr_part + n } else { isr_part.max(*n) };
                }
                _ => {}
            }
        }
        match acc {
            Bound::Finite(n) => Bound::Finite(n + isr_part),
            inf => inf,
        }
    };

    let vtables = cx.vtables.iter().map(|v| (v.0, v.1.clone(), v.2.clone())).collect();
    let loose_pointers = cx.loose_pointers.clone();
    let recursion = decl
        .recursion
        .iter()
        .zip(decl.recursion_text.iter().map(Some).chain(std::iter::repeat(None)))
        .map(|((pat, n), text)| {
            let matched: Vec<String> = functions
                .values()
                .filter(|f| matches_any(pat, &f.name, &cx.raw_name_at(f.entry).unwrap_or_default()))
                .map(|f| short(&f.name))
                .collect();
            let text = text.filter(|t| t.parse::<u32>().is_err()).map(|t| format!(" ({t})")).unwrap_or_default();
            (format!("{pat} <= {n}{text}"), matched)
        })
        .collect();
    Analysis {
        functions,
        roots,
        nested_interrupts,
        indirect_callers,
        indirect,
        vtables,
        loose_pointers,
        code_pointers: code_pointers.into_iter().collect(),
        pointer_source: cx.pointer_source.clone(),
        recursion,
        cycles,
        total,
    }
}

/// A `recursion` pattern list (comma-separated substrings) against a
/// function's demangled and raw names.
fn matches_any(patterns: &str, name: &str, raw: &str) -> bool {
    patterns.split(',').any(|p| name.contains(p) || raw.contains(p))
}

/// The possible targets of an `ICALL`/`IJMP` through a pointer in `f`, and
/// whether some are declared: the declared ones, plus for a vtable slot
/// (see [`Site::slot`]) that slot of every vtable in `.data`, every loose
/// function pointer of `.data` and every function pointer made in code.
///
/// Why that is all a vtable-slot call can reach: Z was read unmodified from
/// displacement `slot` of an object whose address was itself read from
/// memory. If that object is a vtable (a Rust trait object's vtable
/// pointer always points at its start), Z is that slot of one of the
/// vtables. If it is any other object, Z is a function pointer stored in
/// RAM, and a function pointer has to come from somewhere: the `.data`
/// image (loose or vtable pointers) or a constant in code. (Pointers read
/// from flash with `LPM` are not covered: such calls have no slot and must
/// be declared.)
fn resolve(cx: &Context, decl: &Declarations, f: &Function, site: &Site, code_pointers: &BTreeSet<u32>) -> (Vec<u32>, bool) {
    let declared = cx.declared_targets(&f.name, decl);
    let mut out: BTreeSet<u32> = declared.iter().copied().collect();
    if let Some(slot) = site.slot {
        out.extend(cx.slot_targets(slot));
        out.extend(cx.loose_pointers.iter().map(|p| p.1));
        out.extend(code_pointers.iter().copied());
    }
    (out.into_iter().collect(), !declared.is_empty())
}

/// Strongly connected components of more than one function, or with a
/// self-call: the recursion in the program.
fn find_cycles(functions: &BTreeMap<u32, Function>, callees: &dyn Fn(&Site) -> Vec<u32>) -> Vec<Vec<String>> {
    let succ = |f: &Function| -> Vec<u32> { f.sites.iter().flat_map(callees).collect() };
    // Tarjan, iterative enough for firmware-sized graphs (recursive here).
    struct T<'a> {
        index: HashMap<u32, usize>,
        low: HashMap<u32, usize>,
        stack: Vec<u32>,
        on: HashSet<u32>,
        next: usize,
        out: Vec<Vec<u32>>,
        edges: &'a dyn Fn(u32) -> Vec<u32>,
    }
    fn visit(t: &mut T, v: u32) {
        t.index.insert(v, t.next);
        t.low.insert(v, t.next);
        t.next += 1;
        t.stack.push(v);
        t.on.insert(v);
        for w in (t.edges)(v) {
            if !t.index.contains_key(&w) {
                visit(t, w);
                let lw = t.low[&w];
                let lv = t.low.get_mut(&v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(&w) {
                let iw = t.index[&w];
                let lv = t.low.get_mut(&v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[&v] == t.index[&v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(&w);
                comp.push(w);
                if w == v {
                    break;
                }
            }
            t.out.push(comp);
        }
    }
    let edges = |v: u32| functions.get(&v).map(succ).unwrap_or_default();
    let mut t = T {
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on: HashSet::new(),
        next: 0,
        out: Vec::new(),
        edges: &edges,
    };
    for &f in functions.keys() {
        if !t.index.contains_key(&f) {
            visit(&mut t, f);
        }
    }
    let name = |a: u32| functions.get(&a).map(|f| short(&f.name)).unwrap_or_else(|| format!("{a:#x}"));
    t.out
        .into_iter()
        .filter(|c| c.len() > 1 || edges(c[0]).contains(&c[0]))
        .map(|mut c| {
            c.sort();
            c.into_iter().map(name).collect()
        })
        .collect()
}

/// A memoised bound: bytes and the worst next hop (site index, callee).
type Memo = Result<(u32, Option<(usize, u32)>), String>;

/// The call-graph walk: bound of a function given how many more
/// activations each declared recursive function may have.
struct Solver<'a> {
    cx: &'a Context,
    functions: &'a BTreeMap<u32, Function>,
    decl: &'a Declarations,
    callees: &'a dyn Fn(&Site) -> Vec<u32>,
    /// (function, counters) -> bound and the best next hop (site index, callee).
    memo: HashMap<(u32, Vec<u32>), Memo>,
    on_stack: HashSet<(u32, Vec<u32>)>,
}

impl Solver<'_> {
    /// Counters after entering `f`; `None` if the declarations forbid it.
    fn enter(&self, f: u32, counters: &[u32]) -> Option<Vec<u32>> {
        let name = self.functions.get(&f).map(|f| f.name.as_str()).unwrap_or("");
        let raw = self.cx.raw_name_at(f).unwrap_or_default();
        let mut c = counters.to_vec();
        for (i, (pat, _)) in self.decl.recursion.iter().enumerate() {
            if matches_any(pat, name, &raw) {
                if c[i] == 0 {
                    return None;
                }
                c[i] -= 1;
            }
        }
        Some(c)
    }

    /// Bound of `f` (counters already account for `f` itself).
    fn bound(&mut self, f: u32, counters: Vec<u32>) -> Result<u32, String> {
        let key = (f, counters);
        if let Some(r) = self.memo.get(&key) {
            return r.clone().map(|r| r.0);
        }
        let func = self.functions.get(&f).expect("every reachable function is analysed");
        if self.on_stack.contains(&key) {
            return Err(format!(
                "recursion through {} with no declared bound (add `recursion <name> <max-depth>` to assets/stack_recursion.txt)",
                short(&func.name)
            ));
        }
        if let Some(p) = func.problems.first() {
            let why = format!("{}: {p}", short(&func.name));
            self.memo.insert(key, Err(why.clone()));
            return Err(why);
        }
        self.on_stack.insert(key.clone());
        let mut best: Memo = Ok((func.frame, None));
        'sites: for (i, site) in func.sites.iter().enumerate() {
            let callees = (self.callees)(site);
            if callees.is_empty() {
                best = Err(format!(
                    "{} calls through a pointer at {:#06x} (declare `indirect <caller> -> <targets>` in assets/stack_targets.txt)",
                    short(&func.name),
                    site.pc
                ));
                break 'sites;
            }
            for t in callees {
                let Some(c) = self.enter(t, &key.1) else { continue };
                match self.bound(t, c) {
                    Ok(n) => {
                        let cost = site.depth + if site.kind == EdgeKind::Call { 2 } else { 0 } + n;
                        if let Ok((b, _)) = best {
                            if cost > b {
                                best = Ok((cost, Some((i, t))));
                            }
                        }
                    }
                    Err(e) => {
                        best = Err(e);
                        break 'sites;
                    }
                }
            }
        }
        self.on_stack.remove(&key);
        self.memo.insert(key, best.clone());
        best.map(|b| b.0)
    }

    /// The worst path from `f` (after `bound` succeeded on it).
    fn path(&self, f: u32, counters: &[u32]) -> Vec<Step> {
        let mut out = Vec::new();
        let mut f = f;
        let Some(mut c) = self.enter(f, counters) else { return out };
        loop {
            let func = &self.functions[&f];
            let next = match self.memo.get(&(f, c.clone())) {
                Some(Ok((_, n))) => *n,
                _ => None,
            };
            let mut step = Step { name: func.name.clone(), entry: f, frame: func.frame, call_depth: None, via: None };
            match next {
                Some((i, t)) if out.len() < 10_000 => {
                    step.call_depth = Some(func.sites[i].depth);
                    step.via = Some(func.sites[i].kind);
                    out.push(step);
                    match self.enter(t, &c) {
                        Some(nc) => c = nc,
                        None => break,
                    }
                    f = t;
                }
                _ => {
                    out.push(step);
                    break;
                }
            }
        }
        out
    }
}

/// The program as the analysis needs it.
struct Context {
    flash: Vec<u8>,
    /// Flash FUNC symbols and vector targets: jumping there is a tail call.
    entries: BTreeSet<u32>,
    /// Sized symbols (address, size) to know a function's own range.
    ranges: BTreeMap<u32, u32>,
    /// Code that is part of its caller: `__prologue_saves__`, `__epilogue_restores__`.
    inline: Vec<(u32, u32)>,
    names: BTreeMap<u32, (String, String)>,
    vector_count: u32,
    /// Vtable-shaped objects of the `.data` image: (data address, symbol,
    /// (offset, function) of each function pointer).
    vtables: Vec<Vtable>,
    /// Function entries stored in the `.data` image outside those vtables
    /// (at any byte offset): `(data address, function)`.
    loose_pointers: Vec<(u32, u32)>,
    /// Byte addresses of the sized flash objects (strings, tables).
    flash_objects: BTreeSet<u32>,
    /// The ELF's code-address relocations, when it has them: then the
    /// function pointers are those, else they are guessed from values.
    relocs: Option<CodeRelocations>,
    /// How the function pointers were found, for the report.
    pointer_source: String,
}

impl Context {
    fn new(program: &Program, pointers: Pointers) -> Context {
        let syms = &program.symbols;
        let mut entries = BTreeSet::new();
        let mut ranges = BTreeMap::new();
        let mut names: BTreeMap<u32, (String, String, u8)> = BTreeMap::new();
        let mut flash_objects = BTreeSet::new();
        for s in syms.symbols.iter().filter(|s| s.space == Space::Flash) {
            if s.kind == SymbolKind::Function {
                entries.insert(s.address);
            } else if s.size > 0 {
                flash_objects.insert(s.address);
            }
            if s.size > 0 && s.kind == SymbolKind::Function {
                ranges.insert(s.address, s.size);
            }
            // Prefer a function name, then a global-looking one.
            let rank = match s.kind {
                SymbolKind::Function => 3,
                _ if s.name == "__init" => 3,
                _ if s.name.starts_with('.') => 0,
                _ if s.name.starts_with("__vector_") => 1,
                _ => 2,
            };
            if names.get(&s.address).is_none_or(|n| n.2 < rank) {
                names.insert(s.address, (demangle(&s.name), s.name.clone(), rank));
            }
        }
        let mut inline = Vec::new();
        for name in ["__prologue_saves__", "__epilogue_restores__"] {
            if let Some(s) = syms.lookup(name) {
                entries.remove(&s.address);
                // 18 pushes/pops and the frame code: under 64 bytes.
                inline.push((s.address, s.address + s.size.max(64)));
            }
        }
        let vector_end = syms
            .lookup("__trampolines_start")
            .or_else(|| syms.lookup("__ctors_start"))
            .map(|s| s.address)
            .unwrap_or(0x70);
        let mut cx = Context {
            flash: program.flash.clone(),
            entries,
            ranges,
            inline,
            names: names.into_iter().map(|(a, (d, r, _))| (a, (d, r))).collect(),
            vector_count: 0,
            vtables: Vec::new(),
            loose_pointers: Vec::new(),
            flash_objects,
            relocs: match pointers {
                Pointers::Relocated(r) => Some(r.clone()),
                Pointers::Guessed(_) => None,
            },
            pointer_source: match pointers {
                Pointers::Relocated(_) => "from the ELF's relocations (R_AVR_16_PM words, pm/gs ldi pairs)".to_string(),
                Pointers::Guessed(why) => format!("guessed from the values of words and ldi pairs: {why}"),
            },
        };
        // Count the vectors: JMP/RJMP slots of 4 bytes from 0.
        let mut n = 0;
        while n * 4 < vector_end {
            match cx.instr(n * 2) {
                Instr::Jmp { hi, k } => {
                    cx.entries.insert(Instr::long_target(hi, k) * 2);
                }
                Instr::Rjmp { k } => {
                    cx.entries.insert(cx.rel(n * 2, k as i32) * 2);
                }
                _ => break,
            }
            n += 1;
        }
        cx.vector_count = n;
        cx.find_function_pointers(program);
        // `__bad_interrupt` and the reset target are not tail-call targets
        // in the usual sense, but treating them so is harmless.
        cx
    }

    /// Every function pointer stored in the initial `.data` image (where
    /// LLVM puts the vtables on the AVR): a sized data object shaped like a
    /// Rust vtable (`drop_in_place` or 0, size, align, then one function
    /// per method) gives its slots; any other function pointer is a loose
    /// one. A function pointer is a word the ELF relocates as a code
    /// address (`R_AVR_16_PM`) to a function entry when the ELF carries
    /// its relocations; without them, any 16-bit word at any byte offset
    /// that equals a function entry's word address (which also takes
    /// strings and numbers whose value happens to match: a FEN's "pp" was
    /// `key_analyze` at 0x7070, "BQ" `Game::decode`).
    fn find_function_pointers(&mut self, program: &Program) {
        let syms = &program.symbols;
        let Some(data) = syms.sections.iter().find(|s| s.space == Space::Data && s.name == ".data") else { return };
        let Some(load) = syms.lookup("__data_load_start").map(|s| s.address) else { return };
        let image: Vec<u8> =
            (0..data.size).map(|i| self.flash.get((load + i) as usize).copied().unwrap_or(0xFF)).collect();
        let word = |off: u32| -> u16 {
            u16::from_le_bytes([image.get(off as usize).copied().unwrap_or(0), image.get(off as usize + 1).copied().unwrap_or(0)])
        };
        let (entries, inline) = (&self.entries, &self.inline);
        let is_entry = |a: u32| entries.contains(&a) && !inline.iter().any(|&(s, e)| a >= s && a < e);
        // The function a pointer at image offset `off` points to, if it is one.
        let relocs = self.relocs.as_ref();
        let fn_at = |off: u32| -> Option<u32> {
            match relocs {
                Some(r) => r.data.get(&(data.start + off)).copied().filter(|&a| is_entry(a)),
                None => Some(word(off) as u32 * 2).filter(|&a| a != 0 && is_entry(a)),
            }
        };
        let (mut vtables, mut loose) = (Vec::new(), Vec::new());
        let mut in_vtable: BTreeSet<u32> = BTreeSet::new(); // image offsets of vtable words
        for sym in syms.symbols.iter().filter(|s| s.space == Space::Data) {
            if sym.address < data.start || sym.address + sym.size > data.end() || sym.size < 8 || sym.size % 2 != 0 {
                continue;
            }
            let off = sym.address - data.start;
            let words: Vec<u16> = (0..sym.size / 2).map(|i| word(off + 2 * i)).collect();
            let align = words[2];
            let slot = |i: usize| fn_at(off + 2 * i as u32);
            let shaped = (words[0] == 0 || slot(0).is_some())
                && align.is_power_of_two()
                && align <= 8
                // 0: a method not callable on the trait object.
                && (3..words.len()).all(|i| words[i] == 0 || slot(i).is_some())
                && (3..words.len()).any(|i| slot(i).is_some());
            if !shaped || sym.size / 2 > 3 + 64 {
                continue;
            }
            let mut slots = Vec::new();
            for i in (0..words.len()).filter(|&i| i != 1 && i != 2) {
                if let Some(t) = slot(i) {
                    slots.push(((2 * i) as u8, t));
                    in_vtable.insert(off + 2 * i as u32);
                }
            }
            vtables.push((sym.address, demangle(&sym.name), slots));
        }
        for off in 0..data.size.saturating_sub(1) {
            if let Some(t) = fn_at(off).filter(|_| !in_vtable.contains(&off)) {
                loose.push((data.start + off, t));
            }
        }
        self.vtables = vtables;
        self.loose_pointers = loose;
    }

    /// Possible targets of a call through the word at `slot` of a vtable.
    fn slot_targets(&self, slot: u8) -> BTreeSet<u32> {
        self.vtables.iter().flat_map(|v| v.2.iter()).filter(|(o, _)| *o == slot).map(|(_, t)| *t).collect()
    }

    fn word(&self, w: u32) -> u16 {
        let a = (w as usize * 2) % 65536;
        let b0 = self.flash.get(a).copied().unwrap_or(0xFF);
        let b1 = self.flash.get(a + 1).copied().unwrap_or(0xFF);
        u16::from_le_bytes([b0, b1])
    }

    fn instr(&self, w: u32) -> Instr {
        decode(self.word(w), self.word(w + 1))
    }

    /// Word address `w + 1 + k` on the 32 K-word flash.
    fn rel(&self, w: u32, k: i32) -> u32 {
        ((w as i32 + 1 + k).rem_euclid(32 * 1024)) as u32
    }

    fn symbol_address(&self, raw: &str) -> Option<u32> {
        self.names.iter().find(|(_, (_, r))| r == raw).map(|(a, _)| *a)
    }

    fn name_at(&self, a: u32) -> Option<String> {
        self.names.get(&a).map(|n| n.0.clone())
    }

    fn raw_name_at(&self, a: u32) -> Option<String> {
        self.names.get(&a).map(|n| n.1.clone())
    }

    fn display_name(&self, a: u32) -> String {
        self.name_at(a).unwrap_or_else(|| format!("sub_{a:04x}"))
    }

    fn is_inline(&self, a: u32) -> bool {
        self.inline.iter().any(|&(s, e)| a >= s && a < e)
    }

    /// Declared targets of the indirect calls in `caller`.
    fn declared_targets(&self, caller: &str, decl: &Declarations) -> Vec<u32> {
        let mut out = BTreeSet::new();
        for (c, targets) in &decl.indirect {
            if !caller.contains(c.as_str()) {
                continue;
            }
            for t in targets {
                for (&a, (d, r)) in &self.names {
                    if self.entries.contains(&a) && (d.contains(t.as_str()) || r.contains(t.as_str())) {
                        out.insert(a);
                    }
                }
            }
        }
        out.into_iter().collect()
    }
}

/// What a register holds, as far as the analysis knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Unknown,
    Const(u8),
    /// A byte of a code address's word address, loaded by an `ldi` the
    /// ELF relocates as such (`pm_lo8(f)`, `pm_hi8(f)`, `gs`); only with
    /// [`CodeRelocations`].
    Code(u8),
    /// Low byte of (entry SP - n).
    SpLo(i32),
    /// High byte of (entry SP - n).
    SpHi(i32),
    /// A byte read from memory and not changed since: `Some(q)` when read at
    /// displacement `q` through a pointer that was itself read from memory
    /// unchanged (a field of the object it points to: a vtable slot when it
    /// is a vtable pointer), `None` otherwise (a reload of a spill, a
    /// global, a field through a computed or passed-in pointer).
    Loaded(Option<u8>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct State {
    depth: i32,
    regs: [Val; 32],
    /// The last value written to SPH.
    sph: Val,
}

impl State {
    fn join(&mut self, other: &State) -> bool {
        let mut changed = false;
        if other.depth > self.depth {
            self.depth = other.depth;
            changed = true;
        }
        for (a, b) in self.regs.iter_mut().zip(other.regs.iter()) {
            if *a != *b && *a != Val::Unknown {
                *a = Val::Unknown;
                changed = true;
            }
        }
        if self.sph != other.sph && self.sph != Val::Unknown {
            self.sph = Val::Unknown;
            changed = true;
        }
        changed
    }
}

/// 16-bit wrap of a depth computed through byte arithmetic.
fn norm(n: i32) -> i32 {
    (n as u16) as i16 as i32
}

fn analyse_function(cx: &Context, entry: u32) -> Function {
    let name = cx.display_name(entry);
    let own_end = cx.ranges.get(&entry).map(|s| entry + s);
    let mut f = Function {
        entry,
        name,
        frame: 0,
        sites: Vec::new(),
        sei: false,
        fn_constants: BTreeSet::new(),
        problems: Vec::new(),
        notes: Vec::new(),
    };
    let mut states: HashMap<u32, State> = HashMap::new();
    let start = entry / 2;
    // Both ABIs keep r1 (`__zero_reg__`) at 0 across calls; an interrupt
    // handler clears it itself before use.
    let mut regs = [Val::Unknown; 32];
    regs[1] = Val::Const(0);
    states.insert(start, State { depth: 0, regs, sph: Val::Unknown });
    let mut work = vec![start];
    let mut sites: BTreeMap<(u32, u8), Site> = BTreeMap::new();
    let mut steps = 0u32;
    let is_tail_target = |t: u32| -> bool {
        t != entry && cx.entries.contains(&t) && !own_end.is_some_and(|end| t > entry && t < end) && !cx.is_inline(t)
    };

    while let Some(pc) = work.pop() {
        steps += 1;
        if steps > 2_000_000 {
            f.problems.push("control flow too large to follow".into());
            break;
        }
        let st = states[&pc].clone();
        if st.depth > DEPTH_LIMIT {
            f.problems.push(format!("stack grows without bound in a loop (at {:#06x})", pc * 2));
            break;
        }
        f.frame = f.frame.max(st.depth.max(0) as u32);
        let instr = cx.instr(pc);
        let next_pc = pc + instr.words();
        let mut n = st.clone();
        let mut succ: Vec<u32> = Vec::new();
        let mut add_site = |kind: EdgeKind, target: Option<u32>, depth: i32| {
            let key = (pc * 2, kind as u8);
            let slot = if target.is_none() { z_slot(&st) } else { None };
            let s = sites.entry(key).or_insert(Site { pc: pc * 2, depth: 0, kind, target, slot });
            s.depth = s.depth.max(depth.max(0) as u32);
            if s.slot != slot {
                // Reached with different kinds of Z: no slot.
                s.slot = None;
            }
        };
        match instr {
            Instr::Push { .. } => {
                n.depth += 1;
                succ.push(next_pc);
            }
            Instr::Pop { d } => {
                n.depth -= 1;
                n.regs[d as usize] = Val::Unknown;
                succ.push(next_pc);
            }
            Instr::Rcall { k: 0 } => {
                // `rcall .+0`: allocates 2 bytes.
                n.depth += 2;
                succ.push(next_pc);
            }
            Instr::Rcall { k } => {
                let t = cx.rel(pc, k as i32) * 2;
                add_site(EdgeKind::Call, Some(t), st.depth);
                clobber_call(&mut n);
                succ.push(next_pc);
            }
            Instr::Call { hi, k } => {
                let t = Instr::long_target(hi, k) * 2;
                add_site(EdgeKind::Call, Some(t), st.depth);
                clobber_call(&mut n);
                succ.push(next_pc);
            }
            Instr::Icall => {
                match z_const(&st) {
                    Some(t) => add_site(EdgeKind::Call, Some(t), st.depth),
                    None => add_site(EdgeKind::Call, None, st.depth),
                }
                clobber_call(&mut n);
                succ.push(next_pc);
            }
            Instr::Ijmp => match z_const(&st) {
                Some(t) if !is_tail_target(t) => succ.push(t / 2),
                Some(t) => add_site(EdgeKind::Tail, Some(t), st.depth),
                None => add_site(EdgeKind::Tail, None, st.depth),
            },
            Instr::Rjmp { .. } | Instr::Jmp { .. } => {
                let t = match instr {
                    Instr::Rjmp { k } => cx.rel(pc, k as i32) * 2,
                    Instr::Jmp { hi, k } => Instr::long_target(hi, k) * 2,
                    _ => unreachable!(),
                };
                if t == 0 && entry != 0 {
                    f.notes.push(format!("jumps to the reset vector at {:#06x}", pc * 2));
                } else if is_tail_target(t) {
                    add_site(EdgeKind::Tail, Some(t), st.depth);
                } else {
                    succ.push(t / 2);
                }
            }
            Instr::Ret | Instr::Reti => {
                if st.depth != 0 {
                    f.notes.push(format!("returns at depth {} at {:#06x}", st.depth, pc * 2));
                }
            }
            Instr::Undefined { word } => {
                f.notes.push(format!("undefined opcode {word:#06x} at {:#06x}: path ends", pc * 2));
            }
            Instr::Brbs { k, .. } | Instr::Brbc { k, .. } => {
                succ.push(next_pc);
                succ.push(cx.rel(pc, k as i32));
            }
            Instr::Cpse { .. } | Instr::Sbrc { .. } | Instr::Sbrs { .. } | Instr::Sbic { .. } | Instr::Sbis { .. } => {
                succ.push(next_pc);
                succ.push(next_pc + cx.instr(next_pc).words());
            }
            Instr::Bset { s: 7 } => {
                f.sei = true;
                succ.push(next_pc);
            }
            Instr::In { d, a } => {
                n.regs[d as usize] = match a {
                    0x3D => Val::SpLo(st.depth),
                    0x3E => Val::SpHi(st.depth),
                    _ => Val::Unknown,
                };
                succ.push(next_pc);
            }
            Instr::Out { r, a: 0x3E } => {
                n.sph = st.regs[r as usize];
                succ.push(next_pc);
            }
            Instr::Out { r, a: 0x3D } => {
                match (st.regs[r as usize], st.sph) {
                    (Val::SpLo(x), _) => n.depth = norm(x),
                    (Val::Const(lo), Val::Const(hi)) => {
                        let sp = u16::from_le_bytes([lo, hi]) as i32;
                        n.depth = RAMEND - sp;
                        f.notes.push(format!("sets SP to {sp:#06x} at {:#06x}", pc * 2));
                    }
                    _ => f.problems.push(format!("writes SP from an unknown value at {:#06x}", pc * 2)),
                }
                succ.push(next_pc);
            }
            Instr::Ldi { d, k } => {
                let code = cx.relocs.as_ref().is_some_and(|r| r.ldi.contains_key(&(pc * 2)));
                n.regs[d as usize] = if code { Val::Code(k) } else { Val::Const(k) };
                succ.push(next_pc);
            }
            Instr::Ldd { d, q, y } => {
                n.regs[d as usize] = load_through(&st, if y { 28 } else { 30 }, q);
                succ.push(next_pc);
            }
            Instr::Ld { d, ptr } => {
                use emulator::cpu::decode::Ptr;
                if ptr == Ptr::X {
                    n.regs[d as usize] = load_through(&st, 26, 0);
                } else {
                    for r in writes(instr) {
                        n.regs[r as usize] = Val::Unknown;
                    }
                    n.regs[d as usize] = Val::Loaded(None);
                }
                succ.push(next_pc);
            }
            Instr::Lds { d, .. } => {
                n.regs[d as usize] = Val::Loaded(None);
                succ.push(next_pc);
            }
            Instr::Eor { d, r } if d == r => {
                n.regs[d as usize] = Val::Const(0);
                succ.push(next_pc);
            }
            Instr::Mov { d, r } => {
                n.regs[d as usize] = st.regs[r as usize];
                succ.push(next_pc);
            }
            Instr::Movw { d, r } => {
                n.regs[d as usize] = st.regs[r as usize];
                n.regs[d as usize + 1] = st.regs[r as usize + 1];
                succ.push(next_pc);
            }
            Instr::Sbiw { d, k } | Instr::Adiw { d, k } => {
                let sign = if matches!(instr, Instr::Sbiw { .. }) { 1 } else { -1 };
                let (lo, hi) = (st.regs[d as usize], st.regs[d as usize + 1]);
                let (nl, nh) = match (lo, hi) {
                    (Val::SpLo(x), Val::SpHi(y)) if x == y => {
                        let v = norm(x + sign * k as i32);
                        (Val::SpLo(v), Val::SpHi(v))
                    }
                    (Val::Const(l), Val::Const(h)) => {
                        let v = u16::from_le_bytes([l, h]).wrapping_sub((sign * k as i32) as u16).to_le_bytes();
                        (Val::Const(v[0]), Val::Const(v[1]))
                    }
                    _ => (Val::Unknown, Val::Unknown),
                };
                n.regs[d as usize] = nl;
                n.regs[d as usize + 1] = nh;
                succ.push(next_pc);
            }
            Instr::Subi { d, .. } | Instr::Sub { d, .. } | Instr::Add { d, .. } if sub_const(&st, instr).is_some() => {
                let k = sub_const(&st, instr).unwrap();
                n.regs[d as usize] = match st.regs[d as usize] {
                    Val::SpLo(x) => Val::SpLo(x + k),
                    Val::Const(c) => Val::Const((c as i32 - k) as u8),
                    _ => Val::Unknown,
                };
                succ.push(next_pc);
            }
            Instr::Sbci { d, .. } | Instr::Sbc { d, .. } | Instr::Adc { d, .. } if sub_const(&st, instr).is_some() => {
                let k = sub_const(&st, instr).unwrap();
                // Exact only as the high half of a pair whose low half holds
                // SP: the borrow/carry of the low half is then accounted for.
                let low = if d % 2 == 1 { st.regs[d as usize - 1] } else { Val::Unknown };
                match (low, st.regs[d as usize]) {
                    (Val::SpLo(x), Val::SpHi(_)) => {
                        // Kept in 16 bits, so that `Y + 98 - 98` through
                        // `subi/sbci r28,0x9e/0xff ... subi/sbci 0x62/0x00`
                        // (LLVM's way past `Y+63`) joins as the same value.
                        let v = norm(x + 256 * k);
                        n.regs[d as usize - 1] = Val::SpLo(v);
                        n.regs[d as usize] = Val::SpHi(v);
                    }
                    _ => n.regs[d as usize] = Val::Unknown,
                }
                succ.push(next_pc);
            }
            other => {
                for r in writes(other) {
                    n.regs[r as usize] = Val::Unknown;
                }
                succ.push(next_pc);
            }
        }
        // A pointer to a function made in code: a register pair holding a
        // constant function entry (word address) as it leaves the
        // function's registers, the only way it can later be called
        // through: stored (push, st, std, sts), handed to a callee in the
        // argument registers (call, tail jump) or returned. A constant that
        // is only read through with LPM or computed with is not one: a
        // flash table's byte address may equal some function's word
        // address, and which one does changes with every build. Nor is one
        // that is also the byte address of a flash object (a string handed
        // to a routine that reads it with LPM): the firmware makes no
        // function pointer in code, but hands flash strings around often.
        // (A string's address equal to `main`'s word address made `main`
        // a target of every vtable call, and the bound unbounded.)
        // With the ELF's relocations, the pair must have been loaded by
        // `ldi`s relocated as a code address ([`Val::Code`]): a number
        // that equals a function's word address is then never one, and a
        // flash string's address (relocated as data, `lo8`) neither, so
        // the flash-object rule is not needed.
        const ARGUMENTS: (u8, u8) = (8, 26);
        const RESULTS: (u8, u8) = (18, 26);
        let escaping: (u8, u8) = match instr {
            Instr::Push { r } | Instr::St { r, .. } | Instr::Std { r, .. } | Instr::Sts { r, .. } => (r & !1, (r & !1) + 2),
            Instr::Rcall { k } if k != 0 => ARGUMENTS,
            Instr::Call { .. } | Instr::Icall | Instr::Ijmp => ARGUMENTS,
            Instr::Rjmp { k } if is_tail_target(cx.rel(pc, k as i32) * 2) => ARGUMENTS,
            Instr::Jmp { hi, k } if is_tail_target(Instr::long_target(hi, k) * 2) => ARGUMENTS,
            Instr::Ret | Instr::Reti => RESULTS,
            _ => (0, 0),
        };
        let relocated = cx.relocs.is_some();
        for p in (escaping.0..escaping.1).step_by(2) {
            let a = match (st.regs[p as usize], st.regs[p as usize + 1]) {
                (Val::Code(l), Val::Code(h)) if relocated => u16::from_le_bytes([l, h]) as u32 * 2,
                (Val::Const(l), Val::Const(h)) if !relocated => u16::from_le_bytes([l, h]) as u32 * 2,
                _ => continue,
            };
            let flash_object = !relocated && cx.flash_objects.contains(&(a / 2));
            if a != 0 && cx.entries.contains(&a) && !cx.is_inline(a) && !flash_object {
                f.fn_constants.insert(a);
            }
        }
        for s in succ {
            let s = s % (32 * 1024);
            if is_tail_target(s * 2) {
                // Falling into the next function: the call before it does
                // not return (`call halt`), or code is shared; either way
                // that function is analysed on its own.
                f.notes.push(format!("falls through into {} at {:#06x}", cx.display_name(s * 2), s * 2));
                continue;
            }
            match states.get_mut(&s) {
                None => {
                    states.insert(s, n.clone());
                    work.push(s);
                }
                Some(old) => {
                    if old.join(&n) {
                        work.push(s);
                    }
                }
            }
        }
    }
    f.problems.dedup();
    f.notes.sort();
    f.notes.dedup();
    f.sites = sites.into_values().collect();
    f
}

/// The constant subtracted by `SUBI`/`SBCI`, `SUB`/`SBC` from a constant
/// register, or minus the constant added by `ADD`/`ADC` from one.
fn sub_const(st: &State, instr: Instr) -> Option<i32> {
    let reg = |r: u8| match st.regs[r as usize] {
        Val::Const(c) => Some(c as i32),
        _ => None,
    };
    match instr {
        Instr::Subi { k, .. } | Instr::Sbci { k, .. } => Some(k as i32),
        Instr::Sub { d, r } | Instr::Sbc { d, r } if d != r => reg(r),
        Instr::Add { d, r } | Instr::Adc { d, r } if d != r => reg(r).map(|k| -k),
        _ => None,
    }
}

/// A byte loaded through the pointer in `base`/`base + 1` at displacement
/// `q`: a slot of that object if the pointer itself was read from memory
/// unmodified, else a value read from memory.
fn load_through(st: &State, base: usize, q: u8) -> Val {
    match (st.regs[base], st.regs[base + 1]) {
        (Val::Loaded(_), Val::Loaded(_)) => Val::Loaded(Some(q)),
        _ => Val::Loaded(None),
    }
}

/// The vtable-like slot Z was loaded from (see [`Site::slot`]).
fn z_slot(st: &State) -> Option<u8> {
    match (st.regs[30], st.regs[31]) {
        (Val::Loaded(Some(a)), Val::Loaded(Some(b))) if b as u16 == a as u16 + 1 => Some(a),
        _ => None,
    }
}

/// Z as a constant word address, converted to a byte address.
fn z_const(st: &State) -> Option<u32> {
    match (st.regs[30], st.regs[31]) {
        (Val::Const(l) | Val::Code(l), Val::Const(h) | Val::Code(h)) => Some(u16::from_le_bytes([l, h]) as u32 * 2),
        _ => None,
    }
}

/// A call clobbers the call-used registers (r0, r18..r27, r30, r31) of both
/// avr-gcc's and LLVM's AVR ABI; the call-saved ones keep their values.
fn clobber_call(st: &mut State) {
    for r in [0usize, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 30, 31] {
        st.regs[r] = Val::Unknown;
    }
}

/// Registers an instruction writes (for those not interpreted above).
fn writes(i: Instr) -> Vec<u8> {
    use emulator::cpu::decode::Ptr;
    use Instr::*;
    let ptr_regs = |p: Ptr| -> Vec<u8> {
        match p {
            Ptr::X => vec![],
            _ => vec![p.reg(), p.reg() + 1],
        }
    };
    match i {
        Movw { d, .. } | Adiw { d, .. } | Sbiw { d, .. } => vec![d, d + 1],
        Mul { .. } | Muls { .. } | Mulsu { .. } | Fmul { .. } | Fmuls { .. } | Fmulsu { .. } => vec![0, 1],
        Sbc { d, .. } | Add { d, .. } | Sub { d, .. } | Adc { d, .. } | And { d, .. } | Eor { d, .. } | Or { d, .. }
        | Mov { d, .. } | Sbci { d, .. } | Subi { d, .. } | Ori { d, .. } | Andi { d, .. } | Ldi { d, .. }
        | Ldd { d, .. } | Lds { d, .. } | Pop { d } | Com { d } | Neg { d } | Swap { d } | Inc { d } | Asr { d }
        | Lsr { d } | Ror { d } | Dec { d } | In { d, .. } | Bld { d, .. } => vec![d],
        Ld { d, ptr } => {
            let mut v = ptr_regs(ptr);
            v.push(d);
            v
        }
        St { ptr, .. } => ptr_regs(ptr),
        Lpm0 => vec![0],
        Lpm { d, inc } => {
            if inc {
                vec![d, 30, 31]
            } else {
                vec![d]
            }
        }
        _ => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_declarations() {
        let d = Declarations::parse(
            "# comment\nrecursion negamax 12\nindirect Menu::run -> menu_new menu_load # two\n\n",
            "t",
        )
        .unwrap();
        assert_eq!(d.recursion, vec![("negamax".to_string(), 12)]);
        assert_eq!(d.indirect, vec![("Menu::run".to_string(), vec!["menu_new".to_string(), "menu_load".to_string()])]);
        assert!(Declarations::parse("recursion x", "t").unwrap_err().contains("t:1"));
        assert!(Declarations::parse("recursion x 0", "t").is_err());
        assert!(Declarations::parse("indirect a b", "t").is_err());
        assert!(Declarations::parse("frobnicate", "t").is_err());
    }

    #[test]
    fn parses_named_depths_and_shared_counts() {
        let c = [("MAX_PLY", 24)];
        let d = Declarations::parse_with("recursion a,b MAX_PLY\nrecursion a MAX_PLY-1\nrecursion c MAX_PLY+2\nrecursion e 3", "t", &c)
            .unwrap();
        assert_eq!(d.recursion, vec![("a,b".into(), 24), ("a".into(), 23), ("c".into(), 26), ("e".into(), 3)]);
        assert_eq!(d.recursion_text, ["MAX_PLY", "MAX_PLY-1", "MAX_PLY+2", "3"]);
        assert!(Declarations::parse_with("recursion a MAX_PLY-24", "t", &c).unwrap_err().contains("at least 1"));
        assert!(Declarations::parse_with("recursion a MAX_PLY-25", "t", &c).unwrap_err().contains("negative"));
        assert!(Declarations::parse_with("recursion a MIN_PLY", "t", &c).unwrap_err().contains("MAX_PLY"));
        assert!(Declarations::parse_with("recursion a, 3", "t", &c).is_err());
        assert!(matches_any("a,b", "xb", ""));
        assert!(!matches_any("a,b", "c", "d"));
    }

    fn compile(name: &str, src: &str, extra: &[&str]) -> Program {
        emulator::loader::elf::parse(&crate::ram::compile_c(name, src, extra)).unwrap()
    }

    /// How the tests built without relocations take their function pointers.
    const GUESSED: Pointers<'static> = Pointers::Guessed("a test build without -Wl,--emit-relocs");

    /// The program built with `-Wl,--emit-relocs`, and its relocations.
    fn compile_relocated(name: &str, src: &str, extra: &[&str]) -> (Program, CodeRelocations) {
        let elf = crate::ram::compile_c(name, src, &[extra, &["-Wl,--emit-relocs"]].concat());
        (emulator::loader::elf::parse(&elf).unwrap(), read_code_relocations(&elf).unwrap())
    }

    /// The program built without relocations (`false`: its pointers are
    /// guessed) or with them, and its relocations when it has them.
    fn build(name: &str, src: &str, extra: &[&str], relocated: bool) -> (Program, Option<CodeRelocations>) {
        if relocated {
            let (p, r) = compile_relocated(name, src, extra);
            (p, Some(r))
        } else {
            (compile(name, src, extra), None)
        }
    }

    fn pointers(r: &Option<CodeRelocations>) -> Pointers<'_> {
        r.as_ref().map_or(GUESSED, Pointers::Relocated)
    }

    /// Runs the program in the emulator to its final `cli; sleep` and
    /// returns the deepest stack it used.
    fn measured(p: &Program) -> u32 {
        let mut avr = emulator::Avr::new(emulator::Config::default());
        avr.load_program(p);
        let stop = avr.run(emulator::RunLimit::UntilSleep { max_cycles: 1_000_000 });
        assert!(matches!(stop, emulator::Stop::Sleeping { interrupts_enabled: false, .. }), "{stop:?}");
        (0x10FF - avr.min_sp()) as u32
    }

    fn root(a: &Analysis, vector: u8) -> &Root {
        a.roots.iter().find(|r| r.vector == vector).unwrap_or_else(|| panic!("no root for vector {vector}"))
    }

    const CHAIN: &str = r#"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
volatile unsigned char sink;
__attribute__((noinline)) void leaf(void) { volatile unsigned char buf[10]; for (unsigned char i = 0; i < 10; i++) buf[i] = i; sink = buf[3]; }
__attribute__((noinline)) void mid(void) { volatile unsigned char buf[20]; buf[0] = 1; leaf(); sink = buf[0]; }
__attribute__((noinline)) void top(void) { volatile unsigned char buf[TOP]; buf[0] = 2; mid(); sink = buf[0]; }
__attribute__((noinline)) void helper(unsigned char v) { volatile unsigned char b[6]; b[0] = v; sink = b[0]; }
#ifdef WITH_ISR
ISR(TIMER0_COMPA_vect) { volatile unsigned char b[4]; b[0] = TCNT0; helper(b[0]); }
#endif
#ifdef NESTED
ISR(TIMER1_COMPA_vect, ISR_NOBLOCK) { sink++; }
#endif
int main(void) { top(); cli(); sleep_cpu(); for (;;) {} }
"#;

    /// A chain of functions with local arrays. By hand (avr-gcc 5.4 -Os):
    /// the start-up code's `call main` 2; main has no frame, `call top` 2;
    /// top pushes r28/r29 and allocates its array with `sbiw r28,30` (32),
    /// `call mid` 2; mid 2 + 20 = 22, `call leaf` 2; leaf 2 + 10 = 12.
    /// 2 + 2 + 32 + 2 + 22 + 2 + 12 = 74.
    #[test]
    fn chain_of_frames_matches_hand_count_and_the_emulator() {
        let p = compile("chain", CHAIN, &["-DTOP=30"]);
        let a = analyse(&p, GUESSED, &Declarations::default());
        assert_eq!(a.total, Bound::Finite(74), "{}", a.report());
        let names: Vec<&str> = root(&a, 0).path.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(&names[names.len() - 4..], ["main", "top", "mid", "leaf"]);
        let frames: Vec<u32> = root(&a, 0).path.iter().rev().take(3).map(|s| s.frame).collect();
        assert_eq!(frames, [12, 22, 32]);
        assert_eq!(measured(&p), 74);
    }

    /// A 100-byte array is allocated with `subi r28,100; sbc r29,r1` and
    /// freed with `subi r28,0x9c; sbci r29,0xff`: 2 + 2 + 102 + 2 + 22 + 2 + 12 = 144.
    /// The same program built with `-mcall-prologues` saves registers
    /// through `__prologue_saves__` where it pays: the bound must still
    /// equal what the emulator measures on the worst path.
    #[test]
    fn subi_sbci_frames_and_call_prologues() {
        let p = compile("chain100", CHAIN, &["-DTOP=100"]);
        let a = analyse(&p, GUESSED, &Declarations::default());
        assert_eq!(a.total, Bound::Finite(144), "{}", a.report());
        assert_eq!(measured(&p), 144);

        // With relocations, the resume address loaded into Z before the
        // jump (`ldi r30,lo8(gs(.L1))`) is a code address ([`Val::Code`]):
        // the `ijmp` back through it is still followed.
        for relocated in [false, true] {
            let (p, r) = build("chain_cp", CHAIN, &["-DTOP=100", "-mcall-prologues"], relocated);
            let a = analyse(&p, pointers(&r), &Declarations::default());
            // top: `jmp __prologue_saves__+0x20` pushes r28/r29 only and
            // allocates r26:r27 = 100; `__epilogue_restores__` undoes it.
            assert_eq!(a.total, Bound::Finite(144), "{}", a.report());
            assert_eq!(measured(&p), 144);
        }
    }

    /// The chain (144) plus TIMER0_COMPA: 2 bytes of return address, then
    /// r1, r0, SREG, the 12 call-used registers and r28/r29 (17), two
    /// `rcall .+0` for its 4-byte array (4), `call helper` 2 and helper's
    /// 2 + 6 (three `rcall .+0`) = 8: 2 + 17 + 4 + 2 + 8 = 33; 144 + 33 = 177.
    #[test]
    fn interrupt_handler_goes_on_top_of_the_main_path() {
        let p = compile("isr", CHAIN, &["-DTOP=100", "-DWITH_ISR"]);
        let a = analyse(&p, GUESSED, &Declarations::default());
        assert!(!a.nested_interrupts);
        assert_eq!(root(&a, 0).bound, Bound::Finite(144), "{}", a.report());
        assert_eq!(root(&a, 16).bound, Bound::Finite(33), "{}", a.report());
        assert_eq!(a.total, Bound::Finite(177), "{}", a.report());
        // Never enabled, so the run does not see it.
        assert_eq!(measured(&p), 144);
    }

    /// TIMER1_COMPA with ISR_NOBLOCK executes SEI: handlers may nest, so all
    /// of them count. It costs 2 + r1, r0, SREG, r24 = 6: 144 + 33 + 6 = 183.
    #[test]
    fn sei_in_a_handler_adds_every_handler() {
        let p = compile("nested", CHAIN, &["-DTOP=100", "-DWITH_ISR", "-DNESTED"]);
        let a = analyse(&p, GUESSED, &Declarations::default());
        assert!(a.nested_interrupts);
        assert_eq!(root(&a, 13).bound, Bound::Finite(6), "{}", a.report());
        assert_eq!(a.total, Bound::Finite(183), "{}", a.report());
    }

    const RECURSIVE: &str = r#"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
volatile unsigned char sink;
__attribute__((noinline)) unsigned char rec(unsigned char n) { volatile unsigned char buf[8]; buf[0] = n; if (n == 0) return buf[0]; return rec(n - 1) + buf[0]; }
int main(void) { sink = rec(4); cli(); sleep_cpu(); for (;;) {} }
"#;

    /// rec(4) has 5 activations of 2 + 8 bytes each and 4 return addresses
    /// between them: 5 * 10 + 4 * 2 = 58, plus `call main` and `call rec`:
    /// 62. Without a declaration the bound is infinite.
    #[test]
    fn recursion_needs_a_declared_bound() {
        let p = compile("rec", RECURSIVE, &[]);
        let a = analyse(&p, GUESSED, &Declarations::default());
        match &a.total {
            Bound::Infinite(why) => assert!(why.contains("recursion through rec"), "{why}"),
            b => panic!("expected unbounded, got {b:?}"),
        }
        assert_eq!(a.cycles, vec![vec!["rec".to_string()]]);

        let decl = Declarations::parse("recursion rec 5", "t").unwrap();
        let a = analyse(&p, GUESSED, &decl);
        assert_eq!(a.total, Bound::Finite(62), "{}", a.report());
        assert_eq!(measured(&p), 62);
        let path = &root(&a, 0).path;
        assert_eq!(path.iter().filter(|s| s.name == "rec").count(), 5);

        let a = analyse(&p, GUESSED, &Declarations::parse("recursion rec 1", "t").unwrap());
        assert_eq!(a.total, Bound::Finite(2 + 2 + 10));
    }

    const INDIRECT: &str = r#"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
volatile unsigned char sink;
__attribute__((noinline)) void small(void) { volatile unsigned char b[3]; b[0] = 1; sink = b[0]; }
__attribute__((noinline)) void big(void) { volatile unsigned char b[40]; b[0] = 1; sink = b[0]; }
void (*volatile handler)(void) = small;
__attribute__((noinline)) void dispatch(void) { handler(); }
int main(void) { dispatch(); handler = big; dispatch(); cli(); sleep_cpu(); for (;;) {} }
"#;

    /// A call through a pointer is unbounded until its targets are
    /// declared; then the worst target counts. avr-gcc makes `dispatch` a
    /// tail call (`lds r30/r31; ijmp`, no return address): call main 2 +
    /// call dispatch 2 + 0 + big (r28/r29 and 40) 42 = 46.
    #[test]
    fn indirect_calls_need_declared_targets() {
        let p = compile("indirect", INDIRECT, &[]);
        let a = analyse(&p, GUESSED, &Declarations::default());
        assert!(a.indirect_callers.iter().any(|n| n == "dispatch"), "{:?}", a.indirect_callers);
        assert!(matches!(&a.total, Bound::Infinite(why) if why.contains("through a pointer")), "{:?}", a.total);

        let decl = Declarations::parse("indirect dispatch -> small big", "t").unwrap();
        let a = analyse(&p, GUESSED, &decl);
        let dispatch = a.functions.values().find(|f| f.name == "dispatch").unwrap();
        assert_eq!(dispatch.sites, vec![Site { pc: 0x108, depth: 0, kind: EdgeKind::Tail, target: None, slot: None }]);
        assert_eq!(a.total, Bound::Finite(46), "{}", a.report());
        assert_eq!(measured(&p), 46);
    }

    #[test]
    fn norm_wraps() {
        assert_eq!(norm(0x1_0008), 8);
        assert_eq!(norm(0xFFF8), -8);
    }

    const VTABLES: &str = r#"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
volatile unsigned char sink;
__attribute__((noinline)) void small(void) { volatile unsigned char b[3]; b[0] = 1; sink = b[0]; }
__attribute__((noinline)) void big(void) { volatile unsigned char b[40]; b[0] = 1; sink = b[0]; }
__attribute__((noinline)) void mid(void) { volatile unsigned char b[20]; b[0] = 1; sink = b[0]; }
__attribute__((noinline)) void huge(void) { volatile unsigned char b[90]; b[0] = 1; sink = b[0]; }
/* Laid out as a Rust vtable: drop_in_place (none), size, align, methods. */
struct vtable { void (*drop)(void); unsigned size, align; void (*first)(void); void (*second)(void); };
const struct vtable A = { 0, 2, 1, small, huge };
const struct vtable B = { 0, 4, 2, big, huge };
const struct vtable *volatile current = &A;
__attribute__((noinline)) void call_first(void) { current->first(); }
int main(void) { call_first(); current = &B; call_first(); mid(); cli(); sleep_cpu(); for (;;) {} }
"#;

    /// A call through a vtable slot is resolved without declarations: the
    /// vtables are found in `.data` and the call through `->first` (slot 6)
    /// reaches `small` and `big` only, never `huge` (slot 8), so the bound
    /// is the measured worst: call main 2 + call call_first 2 + 0 + big 42.
    /// The same whether the pointers are guessed or read from relocations.
    #[test]
    fn vtable_slot_calls_resolve_to_that_slot_of_every_vtable() {
        for relocated in [false, true] {
            let (p, r) = build("vtables", VTABLES, &[], relocated);
            let a = analyse(&p, pointers(&r), &Declarations::default());
            assert_eq!(a.vtables.len(), 2, "{}", a.report());
            assert!(a.loose_pointers.is_empty(), "{}", a.report());
            assert_eq!(a.indirect.len(), 1, "{}", a.report());
            let i = &a.indirect[0];
            assert_eq!(i.slot, Some(6), "{}", a.report());
            assert!(!i.declared);
            let mut names: Vec<&str> = i.targets.iter().map(|t| a.functions[t].name.as_str()).collect();
            names.sort();
            assert_eq!(names, ["big", "small"], "{}", a.report());
            assert_eq!(a.total, Bound::Finite(46), "{}", a.report());
            assert_eq!(measured(&p), 46);
        }
    }

    const CODE_POINTERS: &str = r#"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
#include <avr/pgmspace.h>
volatile unsigned char sink;
__attribute__((noinline)) void small(void) { volatile unsigned char b[3]; b[0] = 1; sink = b[0]; }
__attribute__((noinline)) void big(void) { volatile unsigned char b[40]; b[0] = 1; sink = b[0]; }
__attribute__((noinline)) void huge(void) { volatile unsigned char b[90]; b[0] = 1; sink = b[0]; }
struct vtable { void (*drop)(void); unsigned size, align; void (*first)(void); };
const struct vtable A = { 0, 2, 1, small };
struct vtable R;
const struct vtable *volatile current = &A;
__attribute__((noinline)) void call_first(void) { current->first(); }
/* Reads the flash byte at huge's word address: a number, never called. */
__attribute__((noinline)) void peek(void) { sink = pgm_read_byte((const void *)(unsigned)&huge); }
/* Makes a pointer to big in code and stores it: it may be called. */
__attribute__((noinline)) void fill(void) { R.first = big; }
int main(void) { peek(); fill(); call_first(); current = &R; call_first(); cli(); sleep_cpu(); for (;;) {} }
"#;

    /// A function's word address loaded as a constant counts as a pointer
    /// made in code only when it leaves the registers (here stored by
    /// `fill`); read through with LPM (`peek`) it is a flash address, and
    /// `huge` stays out of the vtable-slot call's targets. The bound is
    /// the measured worst, through `big`. With relocations both are
    /// `gs()` pairs: the escape still decides.
    #[test]
    fn pointers_made_in_code_are_those_that_escape() {
        for relocated in [false, true] {
            let (p, r) = build("code_pointers", CODE_POINTERS, &[], relocated);
            let a = analyse(&p, pointers(&r), &Declarations::default());
            let names: Vec<&str> = a.code_pointers.iter().map(|t| a.functions[t].name.as_str()).collect();
            assert_eq!(names, ["big"], "{}", a.report());
            let mut targets: Vec<&str> = a.indirect[0].targets.iter().map(|t| a.functions[t].name.as_str()).collect();
            targets.sort();
            assert_eq!(targets, ["big", "small"], "{}", a.report());
            assert_eq!(a.total, Bound::Finite(measured(&p)), "{}", a.report());
        }
    }

    const ROOT_POINTER: &str = r#"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
volatile unsigned char sink;
extern void __init(void);
__attribute__((noinline)) void small(void) { volatile unsigned char b[3]; b[0] = 1; sink = b[0]; }
struct vtable { void (*drop)(void); unsigned size, align; void (*first)(void); };
const struct vtable A = { 0, 2, 1, small };
struct vtable R = { 0, 2, 1, small };
const struct vtable *volatile current = &A;
__attribute__((noinline)) void call_first(void) { current->first(); }
/* Stores the reset entry's word address: a number to the analysis. */
__attribute__((noinline)) void fill(void) { R.first = __init; }
int main(void) { fill(); call_first(); cli(); sleep_cpu(); for (;;) {} }
"#;

    /// The reset entry (and any handler) is entered by the hardware only:
    /// a constant equal to its word address, even one that escapes, is not
    /// a target of calls through pointers, and the bound stays finite (a
    /// firmware build whose `__init` landed at 0x2000 had `App::search`'s
    /// 0x1000 make every vtable call a call of `__init`).
    #[test]
    fn a_roots_address_made_in_code_is_not_a_pointer() {
        // With relocations `gs(__init)` is a real code address: still
        // not a target, for the same reason.
        for relocated in [false, true] {
            let (p, r) = build("root_pointer", ROOT_POINTER, &[], relocated);
            let a = analyse(&p, pointers(&r), &Declarations::default());
            assert!(a.code_pointers.is_empty(), "{}", a.report());
            let targets: Vec<&str> = a.indirect[0].targets.iter().map(|t| a.functions[t].name.as_str()).collect();
            assert_eq!(targets, ["small"], "{}", a.report());
            assert_eq!(a.total, Bound::Finite(measured(&p)), "{}", a.report());
        }
    }

    const LOOKALIKES: &str = r#"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
volatile unsigned char sink;
volatile unsigned number;
__attribute__((noinline)) void small(void) { volatile unsigned char b[3]; b[0] = 1; sink = b[0]; }
__attribute__((noinline)) void big(void) { volatile unsigned char b[40]; b[0] = 1; sink = b[0]; }
__attribute__((noinline)) void mid(void) { volatile unsigned char b[20]; b[0] = 1; sink = b[0]; }
/* Never called: moves huge past 0x200, so both bytes of its word
   address are non-zero. */
__attribute__((noinline, used)) void filler(void) { __asm__ volatile(".rept 300\n nop\n .endr"); }
__attribute__((noinline)) void huge(void) { volatile unsigned char b[90]; b[0] = 1; sink = b[0]; }
struct vtable { void (*drop)(void); unsigned size, align; void (*first)(void); };
const struct vtable A = { 0, 2, 1, small };
/* Not vtable-shaped (align 3): its pointer to big is a loose one. */
struct holder { unsigned a, b, c; void (*first)(void); } H = { 7, 7, 3, big };
struct vtable R;
const struct vtable *volatile current = &A;
/* Bytes 1 and 2 spell huge's word address (LO, HI from a first build):
   text in .data, not a pointer. */
volatile unsigned char text[4] = { 'x', LO, HI, 'y' };
__attribute__((noinline)) void call_first(void) { current->first(); }
/* Stores a number equal to huge's word address, and makes a real
   pointer to mid. */
__attribute__((noinline)) void fill(void) { number = (HI << 8) | LO; R.first = mid; }
int main(void) {
    fill(); sink = text[0];
    call_first(); current = (const struct vtable *)&H; call_first(); current = &R; call_first();
    cli(); sleep_cpu(); for (;;) {}
}
"#;

    /// A word of `.data` text and a number stored by code, both equal to
    /// `huge`'s word address by construction (a first build finds the
    /// address, the second spells it; the layout does not move). Guessed
    /// from values, both read as pointers to `huge` and the vtable-slot
    /// call reaches it: 2 + 2 + 92 = 96 B where the program uses 46. Read
    /// from the ELF's relocations, neither is one, while the real
    /// pointers still are: `big` in `H` (a loose `.data` pointer, R_AVR_16_PM)
    /// and `mid` made in `fill` (`ldi` pair with pm/gs relocations); the
    /// bound is the measured 2 + 2 + 0 + big 42 = 46.
    #[test]
    fn values_that_spell_a_function_address_are_not_pointers_with_relocations() {
        let first = compile("lookalikes0", LOOKALIKES, &["-DLO=1", "-DHI=1"]);
        let huge = first.symbols.lookup("huge").unwrap().address;
        let (lo, hi) = ((huge / 2) & 0xFF, (huge / 2) >> 8);
        assert!(lo != 0 && hi != 0, "huge at {huge:#x}: the filler no longer moves it far enough");
        let defs = [format!("-DLO={lo}"), format!("-DHI={hi}")];
        let defs: Vec<&str> = defs.iter().map(String::as_str).collect();
        let name = |a: &Analysis, t: &u32| a.functions.get(t).map(|f| f.name.clone()).unwrap_or_default();
        let text = |p: &Program| p.symbols.lookup("text").unwrap().address;
        let holder = |p: &Program| p.symbols.lookup("H").unwrap().address;

        // Guessed (the heuristic kept for ELFs without relocations): fooled.
        let p = compile("lookalikes", LOOKALIKES, &defs);
        assert_eq!(p.symbols.lookup("huge").unwrap().address, huge, "the layout moved between the builds");
        let a = analyse(&p, GUESSED, &Declarations::default());
        assert!(a.pointer_source.starts_with("guessed"), "{}", a.pointer_source);
        assert!(a.loose_pointers.contains(&(text(&p) + 1, huge)), "{}", a.report());
        assert!(a.code_pointers.contains(&huge), "{}", a.report());
        assert_eq!(a.total, Bound::Finite(96), "{}", a.report());

        // From the relocations: exact.
        let (p, relocs) = compile_relocated("lookalikes_relocs", LOOKALIKES, &defs);
        assert_eq!(p.symbols.lookup("huge").unwrap().address, huge, "the layout moved between the builds");
        let a = analyse(&p, Pointers::Relocated(&relocs), &Declarations::default());
        assert!(a.pointer_source.starts_with("from the ELF's relocations"), "{}", a.pointer_source);
        let loose: Vec<(u32, String)> = a.loose_pointers.iter().map(|(at, t)| (*at, name(&a, t))).collect();
        assert_eq!(loose, [(holder(&p) + 6, "big".to_string())], "{}", a.report());
        let made: Vec<String> = a.code_pointers.iter().map(|t| name(&a, t)).collect();
        assert_eq!(made, ["mid"], "{}", a.report());
        let mut targets: Vec<String> = a.indirect[0].targets.iter().map(|t| name(&a, t)).collect();
        targets.sort();
        assert_eq!(targets, ["big", "mid", "small"], "{}", a.report());
        assert_eq!(a.total, Bound::Finite(46), "{}", a.report());
        assert_eq!(measured(&p), 46);
    }

    /// An ELF linked without `--emit-relocs` has none to read: the
    /// analysis falls back to guessing and says so.
    #[test]
    fn without_relocations_the_pointers_are_guessed() {
        let elf = crate::ram::compile_c("no_relocs", VTABLES, &[]);
        let why = read_code_relocations(&elf).unwrap_err();
        assert!(why.contains("--emit-relocs"), "{why}");
        let elf = crate::ram::compile_c("relocs", VTABLES, &["-Wl,--emit-relocs"]);
        let r = read_code_relocations(&elf).unwrap();
        // A's `small` and `huge`, B's `big` and `huge`: four words.
        assert_eq!(r.data.len(), 4, "{r:?}");

        // A relocated word that does not hold what its relocation says
        // (here changed by hand): no relocation is trusted.
        use object::{Object, ObjectSection};
        let data = object::read::elf::ElfFile32::<object::LittleEndian>::parse(&*elf).unwrap();
        let section = data.section_by_name(".data").unwrap();
        let (file_at, _) = section.file_range().unwrap();
        let first = *r.data.keys().next().unwrap() - (section.address() - 0x80_0000) as u32;
        let mut bad = elf.clone();
        bad[(file_at + first as u64) as usize] ^= 1;
        let why = read_code_relocations(&bad).unwrap_err();
        assert!(why.contains("disagrees"), "{why}");
    }
}
