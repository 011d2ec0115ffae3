//! The decoder and disassembler against avr-objdump for all 65,536 words.
//!
//! Each word is followed by a 0x0000 word, so two-word instructions get a
//! zero operand and every test word starts at a multiple of 4 bytes.
//!
//! Known avr-objdump quirks we excuse: it decodes with the whole AVR opcode
//! table regardless of `-m avr5`, so it shows instructions the ATmega644
//! does not have (ELPM, EIJMP, EICALL, SPM Z+, DES, XCH, LAS, LAC, LAT),
//! which our decoder rejects as undefined (`.word`).

mod common;

use emulator::disasm::disassemble;
use std::process::Command;

/// Mnemonics of opcodes the ATmega644 lacks but avr-objdump decodes.
const NOT_ON_ATMEGA644: [&str; 8] = ["elpm", "eijmp", "eicall", "des", "xch", "las", "lac", "lat"];

fn normalise(text: &str) -> String {
    let text = text.split(';').next().unwrap_or("");
    let mut parts = text.split_whitespace();
    let mnemonic = parts.next().unwrap_or("").to_lowercase();
    let operands: String = parts.collect::<Vec<_>>().join("").to_lowercase();
    format!("{mnemonic} {operands}")
}

#[test]
fn decoder_matches_avr_objdump_for_every_word() {
    common::require_tool("avr-objdump");
    let dir = common::scratch_dir();
    let bin = dir.path().join("all.bin");
    let mut image = Vec::with_capacity(4 * 65536);
    for w in 0..=u16::MAX {
        image.extend_from_slice(&w.to_le_bytes());
        image.extend_from_slice(&[0, 0]);
    }
    std::fs::write(&bin, &image).unwrap();
    let out = Command::new("avr-objdump")
        .args(["-D", "-z", "-b", "binary", "-m", "avr5"])
        .arg(&bin)
        .output()
        .expect("run avr-objdump (run `cargo xtask setup`)");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);

    let mut expected: Vec<Option<String>> = vec![None; 65536];
    for line in text.lines() {
        let mut fields = line.splitn(3, '\t');
        let (Some(addr), Some(_bytes), Some(asm)) = (fields.next(), fields.next(), fields.next()) else { continue };
        let Ok(addr) = u32::from_str_radix(addr.trim().trim_end_matches(':'), 16) else { continue };
        if addr % 4 == 0 {
            expected[(addr / 4) as usize] = Some(normalise(asm));
        }
    }

    let mut mismatches = Vec::new();
    let mut excused = 0;
    for w in 0..=u16::MAX {
        let want = expected[w as usize].clone().unwrap_or_else(|| panic!("objdump printed nothing for {w:#06x}"));
        let got = normalise(&disassemble(w, 0, 0, None));
        if want == got {
            continue;
        }
        let mnemonic = want.split(' ').next().unwrap_or("");
        let xmega_spm = want == "spm z+";
        if got.starts_with(".word") && (NOT_ON_ATMEGA644.contains(&mnemonic) || xmega_spm) {
            excused += 1;
            continue;
        }
        mismatches.push(format!("{w:#06x}: objdump `{want}`, ours `{got}`"));
    }
    eprintln!("{} words compared, {excused} excused", expected.len());
    assert!(
        mismatches.is_empty(),
        "{} mismatches ({} excused), first ones:\n{}",
        mismatches.len(),
        excused,
        mismatches.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
    // Sanity: the excused set is what we expect, not a silent hole.
    assert!(excused > 0 && excused < 2200, "unexpected number of excused words: {excused}");
}
