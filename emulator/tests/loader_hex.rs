//! Intel HEX parsing: records, checksums and errors.

use emulator::loader::hex::parse;
use emulator::LoadError;

#[test]
fn data_and_address_records() {
    let text = ":020000000C945E\n:020000020010EC\n:0100000055AA\n:00000001FF\n";
    let program = parse(text).unwrap();
    assert_eq!(&program.flash[..2], &[0x0C, 0x94]);
    assert_eq!(program.flash[0x100], 0x55, "extended segment 0x0010 is base 0x100");
    assert_eq!(program.flash[2], 0xFF, "gaps are erased flash");
}

#[test]
fn extended_linear_address_beyond_flash_is_an_overflow() {
    let text = ":020000040001F9\n:0100000055AA\n:00000001FF\n";
    assert!(matches!(parse(text), Err(LoadError::FlashOverflow { .. })));
}

#[test]
fn bad_checksum_names_the_line() {
    let text = ":020000000C94FF\n";
    assert_eq!(parse(text), Err(LoadError::Hex { line: 1, message: "checksum mismatch".into() }));
}

#[test]
fn malformed_records() {
    for (text, what) in [
        ("020000000C945E\n", "start with ':'"),
        (":02000\n", "too short"),
        (":0200000G0C945E\n", "invalid hex digit"),
        (":030000000C945E\n", "byte count"),
        (":00000007F9\n", "unknown record type"),
        (":00000001FF\n:0100000055AA\n", "after the end-of-file"),
    ] {
        match parse(text) {
            Err(LoadError::Hex { message, .. }) => assert!(message.contains(what), "{text:?}: {message}"),
            other => panic!("{text:?}: {other:?}"),
        }
    }
    assert_eq!(parse(""), Err(LoadError::Empty));
}
