//! Text disassembly for the debugger, in avr-objdump's syntax (so it can
//! be checked against avr-objdump), with symbol names as comments.

use crate::cpu::decode::{decode, Instr, Ptr};
use crate::loader::{Space, Symbols};

const BRANCH_SET: [&str; 8] = ["brcs", "breq", "brmi", "brvs", "brlt", "brhs", "brts", "brie"];
const BRANCH_CLEAR: [&str; 8] = ["brcc", "brne", "brpl", "brvc", "brge", "brhc", "brtc", "brid"];
const FLAG_SET: [&str; 8] = ["sec", "sez", "sen", "sev", "ses", "seh", "set", "sei"];
const FLAG_CLEAR: [&str; 8] = ["clc", "clz", "cln", "clv", "cls", "clh", "clt", "cli"];

/// Disassembles the instruction made of `word` (and `next` if it is a
/// two-word one) at word address `pc`. Targets and data addresses get a
/// `; <symbol>` comment when `symbols` knows them.
pub fn disassemble(word: u16, next: u16, pc: u32, symbols: Option<&Symbols>) -> String {
    let instr = decode(word, next);
    let text = format_instr(instr);
    let comment = match instr {
        Instr::Rjmp { k } | Instr::Rcall { k } => Some(target_comment(pc as i64 + 1 + k as i64, symbols)),
        Instr::Brbs { k, .. } | Instr::Brbc { k, .. } => Some(target_comment(pc as i64 + 1 + k as i64, symbols)),
        Instr::Jmp { hi, k } | Instr::Call { hi, k } => {
            symbols.and_then(|s| s.label(Space::Flash, Instr::long_target(hi, k) * 2)).map(|l| format!("<{l}>"))
        }
        Instr::Lds { k, .. } | Instr::Sts { k, .. } => {
            symbols.and_then(|s| s.label(Space::Data, k as u32)).map(|l| format!("<{l}>"))
        }
        _ => None,
    };
    match comment {
        Some(c) => format!("{text}\t; {c}"),
        None => text,
    }
}

fn target_comment(word_target: i64, symbols: Option<&Symbols>) -> String {
    let byte = (word_target * 2).rem_euclid(crate::device::FLASH_BYTES as i64) as u32;
    match symbols.and_then(|s| s.label(Space::Flash, byte)) {
        Some(l) => format!("{byte:#x} <{l}>"),
        None => format!("{byte:#x}"),
    }
}

fn rel(k: i64) -> String {
    // objdump shows relative targets in bytes from the next instruction.
    let bytes = k * 2;
    if bytes < 0 {
        format!(".{bytes}")
    } else {
        format!(".+{bytes}")
    }
}

fn ptr(p: Ptr) -> &'static str {
    match p {
        Ptr::X => "X",
        Ptr::XInc => "X+",
        Ptr::XDec => "-X",
        Ptr::YInc => "Y+",
        Ptr::YDec => "-Y",
        Ptr::ZInc => "Z+",
        Ptr::ZDec => "-Z",
    }
}

/// The instruction alone (mnemonic, tab, operands), objdump style.
pub fn format_instr(instr: Instr) -> String {
    use Instr::*;
    let rr = |m: &str, d: u8, r: u8| format!("{m}\tr{d}, r{r}");
    let ri = |m: &str, d: u8, k: u8| format!("{m}\tr{d}, 0x{k:02X}");
    let r1 = |m: &str, d: u8| format!("{m}\tr{d}");
    match instr {
        Nop => "nop".into(),
        Movw { d, r } => rr("movw", d, r),
        Muls { d, r } => rr("muls", d, r),
        Mulsu { d, r } => rr("mulsu", d, r),
        Fmul { d, r } => rr("fmul", d, r),
        Fmuls { d, r } => rr("fmuls", d, r),
        Fmulsu { d, r } => rr("fmulsu", d, r),
        Cpc { d, r } => rr("cpc", d, r),
        Sbc { d, r } => rr("sbc", d, r),
        Add { d, r } => rr("add", d, r),
        Cpse { d, r } => rr("cpse", d, r),
        Cp { d, r } => rr("cp", d, r),
        Sub { d, r } => rr("sub", d, r),
        Adc { d, r } => rr("adc", d, r),
        And { d, r } => rr("and", d, r),
        Eor { d, r } => rr("eor", d, r),
        Or { d, r } => rr("or", d, r),
        Mov { d, r } => rr("mov", d, r),
        Mul { d, r } => rr("mul", d, r),
        Cpi { d, k } => ri("cpi", d, k),
        Sbci { d, k } => ri("sbci", d, k),
        Subi { d, k } => ri("subi", d, k),
        Ori { d, k } => ri("ori", d, k),
        Andi { d, k } => ri("andi", d, k),
        Ldi { d, k } => ri("ldi", d, k),
        Ldd { d, q, y } => {
            let p = if y { "Y" } else { "Z" };
            if q == 0 {
                format!("ld\tr{d}, {p}")
            } else {
                format!("ldd\tr{d}, {p}+{q}")
            }
        }
        Std { r, q, y } => {
            let p = if y { "Y" } else { "Z" };
            if q == 0 {
                format!("st\t{p}, r{r}")
            } else {
                format!("std\t{p}+{q}, r{r}")
            }
        }
        Ld { d, ptr: p } => format!("ld\tr{d}, {}", ptr(p)),
        St { r, ptr: p } => format!("st\t{}, r{r}", ptr(p)),
        Lds { d, k } => format!("lds\tr{d}, 0x{k:04x}"),
        Sts { r, k } => format!("sts\t0x{k:04x}, r{r}"),
        Lpm0 => "lpm".into(),
        Lpm { d, inc } => format!("lpm\tr{d}, Z{}", if inc { "+" } else { "" }),
        Pop { d } => r1("pop", d),
        Push { r } => r1("push", r),
        Com { d } => r1("com", d),
        Neg { d } => r1("neg", d),
        Swap { d } => r1("swap", d),
        Inc { d } => r1("inc", d),
        Asr { d } => r1("asr", d),
        Lsr { d } => r1("lsr", d),
        Ror { d } => r1("ror", d),
        Dec { d } => r1("dec", d),
        Bset { s } => FLAG_SET[s as usize].into(),
        Bclr { s } => FLAG_CLEAR[s as usize].into(),
        Ret => "ret".into(),
        Reti => "reti".into(),
        Sleep => "sleep".into(),
        Break => "break".into(),
        Wdr => "wdr".into(),
        Spm => "spm".into(),
        Ijmp => "ijmp".into(),
        Icall => "icall".into(),
        Jmp { hi, k } => format!("jmp\t{}", byte_address(Instr::long_target(hi, k))),
        Call { hi, k } => format!("call\t{}", byte_address(Instr::long_target(hi, k))),
        Adiw { d, k } => ri("adiw", d, k),
        Sbiw { d, k } => ri("sbiw", d, k),
        Cbi { a, b } => format!("cbi\t0x{a:02x}, {b}"),
        Sbic { a, b } => format!("sbic\t0x{a:02x}, {b}"),
        Sbi { a, b } => format!("sbi\t0x{a:02x}, {b}"),
        Sbis { a, b } => format!("sbis\t0x{a:02x}, {b}"),
        In { d, a } => format!("in\tr{d}, 0x{a:02x}"),
        Out { r, a } => format!("out\t0x{a:02x}, r{r}"),
        Rjmp { k } => format!("rjmp\t{}", rel(k as i64)),
        Rcall { k } => format!("rcall\t{}", rel(k as i64)),
        Brbs { s, k } => format!("{}\t{}", BRANCH_SET[s as usize], rel(k as i64)),
        Brbc { s, k } => format!("{}\t{}", BRANCH_CLEAR[s as usize], rel(k as i64)),
        Bld { d, b } => format!("bld\tr{d}, {b}"),
        Bst { d, b } => format!("bst\tr{d}, {b}"),
        Sbrc { r, b } => format!("sbrc\tr{r}, {b}"),
        Sbrs { r, b } => format!("sbrs\tr{r}, {b}"),
        Undefined { word } => format!(".word\t0x{word:04x}"),
    }
}

fn byte_address(word_address: u32) -> String {
    match word_address * 2 {
        0 => "0".into(),
        a => format!("{a:#x}"),
    }
}
