//! Random and mutated input to both loaders: always an error or a program,
//! never a panic.

mod common;

use emulator::{Avr, Config};
use proptest::prelude::*;
use std::sync::OnceLock;

/// A real ELF and its HEX form, built once.
fn samples() -> &'static (Vec<u8>, String) {
    static SAMPLES: OnceLock<(Vec<u8>, String)> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        let (elf, path) = common::compile_c("int x = 3; int main(void) { return x; }", &[]);
        let hex_path = path.with_extension("hex");
        let ok = std::process::Command::new("avr-objcopy")
            .args(["-O", "ihex"])
            .arg(&path)
            .arg(&hex_path)
            .status()
            .expect("avr-objcopy (run `cargo xtask setup`)")
            .success();
        assert!(ok);
        (elf, std::fs::read_to_string(hex_path).unwrap())
    })
}

fn machine() -> Avr {
    Avr::with_peripherals(Config::default(), Vec::new())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_as_elf(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = machine().load_elf(&bytes);
    }

    #[test]
    fn random_elf_header_on_magic(tail in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut bytes = b"\x7fELF\x01\x01\x01\x00".to_vec();
        bytes.extend(tail);
        let _ = machine().load_elf(&bytes);
    }

    #[test]
    fn mutated_elf(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..16), cut in any::<usize>()) {
        let mut bytes = samples().0.clone();
        for (at, value) in edits {
            let i = at % bytes.len();
            bytes[i] = value;
        }
        if cut % 4 == 0 {
            bytes.truncate(cut % (bytes.len() + 1));
        }
        let mut avr = machine();
        if avr.load_elf(&bytes).is_ok() {
            // Whatever got loaded must run without panicking too.
            avr.run(emulator::RunLimit::Cycles(2_000));
        }
    }

    #[test]
    fn random_text_as_hex(text in "(:[0-9A-Fa-f]{0,40}\n){0,8}|\\PC{0,200}") {
        let _ = machine().load_hex(&text);
    }

    #[test]
    fn mutated_hex(edits in proptest::collection::vec((any::<usize>(), "[0-9A-F:\n]"), 1..8)) {
        let mut chars: Vec<char> = samples().1.chars().collect();
        for (at, value) in edits {
            let i = at % chars.len();
            chars[i] = value.chars().next().unwrap();
        }
        let text: String = chars.into_iter().collect();
        let _ = machine().load_hex(&text);
    }

    #[test]
    fn random_flash_runs_without_panicking(image in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut avr = machine();
        avr.load_flash(&image).unwrap();
        avr.run(emulator::RunLimit::Cycles(5_000));
    }
}
