//! `board-sim run` from the outside: exit codes, one-line errors and the
//! EEPROM image that persists a saved game across runs.

use std::process::Command;
use tempfile::TempDir;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_board-sim"))
}

/// Removed when dropped, even when the test fails.
fn scratch(name: &str) -> TempDir {
    tempfile::Builder::new().prefix(&format!("board-sim-cli-{name}-")).tempdir().unwrap()
}

#[test]
fn a_missing_or_foreign_file_is_one_clear_line_and_exit_2() {
    let out = bin().args(["run", "/nonexistent/prodigy.elf"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot read /nonexistent/prodigy.elf"), "{err}");

    let dir = scratch("foreign");
    let junk = dir.path().join("junk.elf");
    std::fs::write(&junk, b"\x7fELF but not really").unwrap();
    let out = bin().arg("run").arg(&junk).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn a_saved_game_persists_in_the_eeprom_image_file() {
    let elf = std::env::var("PRODIGY_ELF")
        .expect("PRODIGY_ELF is not set: this test runs the AVR firmware; run it with `cargo xtask test`");
    let dir = scratch("eeprom");
    let image = dir.path().join("board.eep");
    // Menu -> Save (MENU, DOWN x8, ENTER), see README "Using the chess computer".
    let keys = dir.path().join("save.keys");
    let mut script = String::from("at 3s tap MENU\n");
    for _ in 0..8 {
        script.push_str("+300ms tap DOWN\n");
    }
    script.push_str("+300ms tap ENTER\n");
    std::fs::write(&keys, script).unwrap();
    let out = bin()
        .args(["run", &elf, "--max-cycles", "48000000", "--json", "--eeprom"])
        .arg(&image)
        .arg("--keys")
        .arg(&keys)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&image).expect("the run writes the EEPROM image");
    assert_eq!(bytes.len(), 2048);
    assert_eq!(&bytes[..2], b"CP", "a savegame record starts with its magic");

    // A wrong-sized image is refused with one line, and left as it was.
    std::fs::write(&image, [0u8; 3]).unwrap();
    let out = bin().args(["run", &elf, "--max-cycles", "8000", "--eeprom"]).arg(&image).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("3 bytes"));
    assert_eq!(std::fs::read(&image).unwrap(), vec![0u8; 3]);
}
