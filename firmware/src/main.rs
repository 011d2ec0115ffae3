//! The AVR image: boots the board and runs the fast task and background loop.
//!
//! avr-libc's start-up code (linked by avr-gcc) sets the stack pointer to
//! RAMEND, copies `.data` from flash and clears `.bss` before `main` runs.
//!
//! The background loop below is a placeholder for the real UI: it shows the
//! last key on line 2 and echoes serial lines back.
#![no_std]
#![no_main]
#![feature(abi_avr_interrupt)]
#![feature(asm_experimental_arch)]

// The hardware layer's API is wider than this placeholder background uses.
#[allow(dead_code)]
mod hw;

use avr_device::atmega644 as pac;
use firmware::display::Display;
use firmware::flash_str;
use firmware::keys::{key_name, key_name_len, KeyEvent, KeyKind};
use firmware::line::{LineAssembler, LineError};
use firmware::progmem::Table;
use firmware::savegame::SaveError;
use firmware::tones::Sound;
use hw::{buttons, buzzer, fast_task, serial};

/// How long the splash screen stays up, in fast-task ticks.
const SPLASH_TICKS: u32 = 2_000 / firmware::board::FAST_TASK_MS;

#[avr_device::entry]
fn main() -> ! {
    // `take` only fails if called twice; there is nothing sensible to do then.
    let Some(dp) = pac::Peripherals::take() else { hw::halt() };
    hw::pins::init(&dp);
    buzzer::init(&dp);
    // The LCD's power-on wait and init (~60 ms) run before anything else.
    let mut lcd = hw::lcd::Lcd::init();
    serial::init(&dp);
    fast_task::start(&dp);
    // SAFETY: everything the interrupt handlers touch is initialised above.
    unsafe { avr_device::interrupt::enable() };

    let mut disp = Display::new();
    disp.put_flash_centred(0, flash_str!(b"Chess Prodigy"));
    disp.put_flash_centred(1, flash_str!(b"v2.0  Rust"));
    lcd.flush(&mut disp);
    buzzer::play(Sound::MoveMade);
    serial::write_flash(flash_str!(b"Chess Prodigy v2.0 Rust\r\n"));

    let start = fast_task::ticks();
    while fast_task::ticks().wrapping_sub(start) < SPLASH_TICKS {
        hw::background_idle();
    }
    // Presses made while the splash was up are not meant for what follows.
    buttons::discard();
    disp.clear_row(1);
    disp.put_flash(flash_str!(b"Key: -"));
    lcd.flush(&mut disp);

    let mut line = LineAssembler::new();
    loop {
        while let Some(ev) = buttons::next_event() {
            show_key(&mut disp, ev);
            buzzer::play(Sound::KeyClick);
        }
        while let Some(b) = serial::read_byte() {
            match line.push(b) {
                None => {}
                Some(Ok(text)) => serial_line(text),
                Some(Err(LineError::TooLong)) => serial::write_flash(flash_str!(b"error: line too long\r\n")),
                Some(Err(LineError::Garbage)) => serial::write_flash(flash_str!(b"error: bad characters\r\n")),
            }
        }
        lcd.flush(&mut disp);
        hw::sleep_unless(|| buttons::pending() || serial::rx_pending());
    }
}

/// Echoes a serial line. Two bench commands exercise the EEPROM driver:
/// `!save TEXT` stores TEXT as the save record, `!load` prints it back.
fn serial_line(text: &[u8]) {
    if let Some(payload) = strip_prefix(text, flash_str!(b"!save ")) {
        match hw::eeprom::save(payload) {
            Ok(()) => serial::write_flash(flash_str!(b"saved\r\n")),
            Err(e) => save_error(e),
        }
    } else if strip_prefix(text, flash_str!(b"!load")).is_some_and(|rest| rest.is_empty()) {
        let mut buf = [0u8; firmware::line::MAX_LINE];
        match hw::eeprom::load(&mut buf) {
            Ok(n) => {
                serial::write_flash(flash_str!(b"loaded "));
                serial::write_bytes(&buf[..n]);
                serial::write_flash(flash_str!(b"\r\n"));
            }
            Err(e) => save_error(e),
        }
    } else {
        serial::write_flash(flash_str!(b"echo "));
        serial::write_bytes(text);
        serial::write_flash(flash_str!(b"\r\n"));
    }
}

fn save_error(e: SaveError) {
    serial::write_flash(flash_str!(b"error: "));
    match e {
        SaveError::Blank => serial::write_flash(flash_str!(b"blank")),
        SaveError::BadMagic => serial::write_flash(flash_str!(b"bad magic")),
        SaveError::BadVersion => serial::write_flash(flash_str!(b"bad version")),
        SaveError::BadLength => serial::write_flash(flash_str!(b"bad length")),
        SaveError::BadChecksum => serial::write_flash(flash_str!(b"bad checksum")),
    }
    serial::write_flash(flash_str!(b"\r\n"));
}

/// `text` without the flash string `prefix`, if it starts with it.
fn strip_prefix<'a, const N: usize>(text: &'a [u8], prefix: &Table<u8, N>) -> Option<&'a [u8]> {
    if text.len() < N || (0..N).any(|i| text[i] != prefix.get(i)) {
        return None;
    }
    Some(&text[N..])
}

/// Line 2: "Key: ENTER", with " long" or " rep" for those kinds.
fn show_key(disp: &mut Display, ev: KeyEvent) {
    disp.set_cursor(1, 0);
    disp.put_flash(flash_str!(b"Key: "));
    disp.put_bytes(&key_name(ev.key)[..key_name_len(ev.key)]);
    match ev.kind {
        KeyKind::Press => {}
        KeyKind::Repeat => disp.put_flash(flash_str!(b" rep")),
        KeyKind::Long => disp.put_flash(flash_str!(b" long")),
    }
    disp.pad_row();
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    hw::halt()
}
