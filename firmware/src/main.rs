//! The AVR image: boots the board, shows the splash, then runs the chess
//! computer (`firmware::app`) in the background loop.
//!
//! avr-libc's start-up code (linked by avr-gcc) sets the stack pointer to
//! RAMEND, copies `.data` from flash and clears `.bss` before `main` runs.
//!
//! CP1's task structure: the 25 ms fast task (Timer0 interrupt) samples the
//! keys, steps the buzzer and counts the clock; the background loop here
//! runs the UI and the engine. All big state is static (no large stack
//! locals): the game as `GAME` (with the symbol `CHESS_POSITION` at its
//! `Position`, where the debugger's chessboard panel finds the 0x88 board)
//! and the rest of the application as `APP`.
#![no_std]
#![no_main]
#![feature(abi_avr_interrupt)]
#![feature(asm_experimental_arch)]
#![feature(optimize_attribute)]

// The hardware layer's API is wider than the application uses.
#[allow(dead_code)]
mod hw;

use avr_device::atmega644 as pac;
use core::mem::MaybeUninit;
use core::ptr::addr_of_mut;
use firmware::app::{App, Platform};
use firmware::display::Display;
use firmware::flash_str;
use firmware::game::Game;
use firmware::keys::KeyEvent;
use firmware::savegame::SaveError;
use firmware::tones::Sound;
use hw::{buttons, buzzer, fast_task, serial};

/// How long the splash screen stays up, in fast-task ticks.
const SPLASH_TICKS: u16 = (2_000 / firmware::board::FAST_TASK_MS) as u16;

/// The game. Zero-initialised (`.bss`), set up at boot.
static mut GAME: Game = Game::zeroed();

// The debugger's chessboard panel reads the `Position` at the symbol
// `CHESS_POSITION` (its first 128 bytes are the 0x88 board): the address
// of `GAME.pos`.
core::arch::global_asm!(
    ".globl CHESS_POSITION",
    ".type CHESS_POSITION, @object",
    ".set CHESS_POSITION, {game} + {offset}",
    ".size CHESS_POSITION, {size}",
    game = sym GAME,
    offset = const core::mem::offset_of!(Game, pos),
    size = const core::mem::size_of::<firmware::chess::Position>(),
);

// memcpy, memset and memcmp in avr-libc's convention (arguments r25:r24,
// r23:r22, r21:r20; result r25:r24): plain byte loops. The compiler calls
// them for struct copies (the search's 9-byte undo record on every move)
// and array clears; compiler_builtins' generic versions save 14 registers
// and align words an 8-bit CPU does not have (about 200 cycles for a
// 9-byte copy, 80 here) and take 0.7 KB of flash behind their shims.
core::arch::global_asm!(
    ".pushsection .text.memcpy,\"ax\",@progbits",
    ".globl memcpy",
    ".type memcpy, @function",
    "memcpy:",
    "    movw r30, r22",
    "    movw r26, r24",
    "    rjmp 2f",
    "1:  ld r0, Z+",
    "    st X+, r0",
    "2:  subi r20, 1",
    "    sbci r21, 0",
    "    brcc 1b",
    "    ret",
    ".size memcpy, . - memcpy",
    ".popsection",
    ".pushsection .text.memset,\"ax\",@progbits",
    ".globl memset",
    ".type memset, @function",
    "memset:",
    "    movw r26, r24",
    "    rjmp 2f",
    "1:  st X+, r22",
    "2:  subi r20, 1",
    "    sbci r21, 0",
    "    brcc 1b",
    "    ret",
    ".size memset, . - memset",
    ".popsection",
    ".pushsection .text.memcmp,\"ax\",@progbits",
    ".globl memcmp",
    ".type memcmp, @function",
    "memcmp:",
    "    movw r30, r22",
    "    movw r26, r24",
    "2:  subi r20, 1",
    "    sbci r21, 0",
    "    brcs 3f",
    "    ld r24, X+",
    "    ld r0, Z+",
    "    sub r24, r0",
    "    breq 2b",
    "    sbc r25, r25",
    "    ret",
    "3:  clr r24",
    "    clr r25",
    "    ret",
    ".size memcmp, . - memcmp",
    ".popsection",
);

// The u32 division LLVM calls, in libgcc's register convention (dividend
// r25:r22, divisor r21:r18; quotient r21:r18, remainder r25:r22; clobbers
// r26, r27, r30, r31): libgcc's 33-step shift-and-subtract loop, plus a
// shortcut that skips 8 steps per zero top byte of the dividend (the
// numbers printed are mostly small). 92 bytes; defining it here keeps
// compiler_builtins' version (a 1.1 KB `u32_div_rem` behind a shim) out of
// the image. Only the decimal printer (`firmware::decimal`), the clock
// display and the once-per-search time allocation divide: nothing the
// engine does per node.
core::arch::global_asm!(
    ".pushsection .text.__udivmodsi4,\"ax\",@progbits",
    ".globl __udivmodsi4",
    ".type __udivmodsi4, @function",
    "__udivmodsi4:",
    "    ldi r26, 33",
    // A dividend below 2^24, 2^16, 2^8 skips 8, 16, 24 of the steps: its
    // zero top byte is shifted out at once and the quotient bits those
    // steps would insert (ones, complemented at the end) shifted in.
    "0:  tst r25",
    "    brne 3f",
    "    cpi r26, 10",
    "    brlo 3f",
    "    mov r25, r24",
    "    mov r24, r23",
    "    mov r23, r22",
    "    ldi r22, 0xFF",
    "    subi r26, 8",
    "    rjmp 0b",
    "3:  mov r1, r26",
    "    sub r26, r26",
    "    sub r27, r27",
    "    movw r30, r26",
    // The first bit shifted in lands just above the quotient (or falls off
    // the top when nothing was skipped): a one, i.e. a zero quotient bit.
    "    sec",
    "    rjmp 2f",
    "1:  rol r26",
    "    rol r27",
    "    rol r30",
    "    rol r31",
    "    cp r26, r18",
    "    cpc r27, r19",
    "    cpc r30, r20",
    "    cpc r31, r21",
    "    brcs 2f",
    "    sub r26, r18",
    "    sbc r27, r19",
    "    sbc r30, r20",
    "    sbc r31, r21",
    "2:  rol r22",
    "    rol r23",
    "    rol r24",
    "    rol r25",
    "    dec r1",
    "    brne 1b",
    "    com r22",
    "    com r23",
    "    com r24",
    "    com r25",
    "    movw r18, r22",
    "    movw r20, r24",
    "    movw r22, r26",
    "    movw r24, r30",
    "    ret",
    ".size __udivmodsi4, . - __udivmodsi4",
    ".popsection",
);

/// UI, engine, frame buffer, serial line assembler; set up at boot.
static mut APP: MaybeUninit<App> = MaybeUninit::uninit();

/// The board as the application sees it.
struct Board {
    lcd: hw::lcd::Lcd,
    cursor: Option<(u8, u8)>,
    seed: u16,
}

impl Platform for Board {
    #[inline(never)]
    fn now_ms(&mut self) -> u32 {
        fast_task::ms()
    }

    fn key(&mut self) -> Option<KeyEvent> {
        let ev = buttons::next_event()?;
        buzzer::play(Sound::KeyClick);
        Some(ev)
    }

    fn rx(&mut self) -> Option<u8> {
        serial::read_byte()
    }

    fn input_pending(&mut self) -> bool {
        buttons::pending() || serial::rx_pending()
    }

    fn tx(&mut self, b: u8) {
        serial::write_byte(b);
    }

    fn tx_bytes(&mut self, s: &[u8]) {
        serial::write_bytes(s);
    }

    unsafe fn tx_flash(&mut self, p: *const u8, n: usize) {
        serial::write_raw(p, n, true);
    }

    fn sound(&mut self, s: Sound) {
        buzzer::play(s);
    }

    fn show(&mut self, d: &mut Display, cursor: Option<(u8, u8)>) {
        if cursor != self.cursor {
            self.cursor = cursor;
            self.lcd.set_cursor(cursor);
        }
        self.lcd.flush(d);
    }

    fn save(&mut self, payload: &[u8]) -> Result<(), SaveError> {
        hw::eeprom::save(payload)
    }

    fn load(&mut self, buf: &mut [u8]) -> Result<usize, SaveError> {
        hw::eeprom::load(buf)
    }

    fn random(&mut self) -> u16 {
        // A 16-bit Galois LFSR stirred with the clock: the user's timing is
        // the entropy.
        let mut s = self.seed ^ fast_task::ticks();
        for _ in 0..3 {
            s = (s >> 1) ^ (0u16.wrapping_sub(s & 1) & 0xB400);
        }
        if s == 0 {
            s = 0xACE1;
        }
        self.seed = s;
        s
    }

    fn idle(&mut self) {
        hw::sleep_unless(|| buttons::pending() || serial::rx_pending());
    }
}

#[avr_device::entry]
fn main() -> ! {
    let mut board = boot();
    // SAFETY: `boot` initialised both statics; only the background loop
    // (never an interrupt handler) uses them, through these references.
    let game = unsafe { &mut *addr_of_mut!(GAME) };
    let app = unsafe { &mut *(addr_of_mut!(APP) as *mut App) };
    app.start(game, &mut board);
    loop {
        app.step(game, &mut board);
        // Every interrupt ends the idle, each byte sent (UDRE) too, and a
        // pass then draws the screen again (about 2,300 cycles). After a
        // search, while `bestmove` drains, that is 22 draws on average
        // (580 in `bench engine`'s 26 searches), but in time the CPU would
        // sleep: sleeping on until a key, a byte or the next tick left the
        // search's cycles the same and cost 36 B.
        board.idle();
    }
}

/// Hardware and statics set-up and the splash screen. Not inlined, so its
/// temporaries do not stay on the stack under the engine's recursion.
#[inline(never)]
#[optimize(size)]
fn boot() -> Board {
    // `take` only fails if called twice; there is nothing sensible to do then.
    let Some(dp) = pac::Peripherals::take() else { hw::halt() };
    hw::pins::init(&dp);
    buzzer::init(&dp);
    // The LCD's power-on wait and init (~60 ms) run before anything else.
    let lcd = hw::lcd::Lcd::init();
    serial::init(&dp);
    fast_task::start(&dp);
    // SAFETY: everything the interrupt handlers touch is initialised above.
    unsafe { avr_device::interrupt::enable() };

    // SAFETY: the statics are not in use yet.
    let game = unsafe { &mut *addr_of_mut!(GAME) };
    let app = unsafe {
        let p = addr_of_mut!(APP) as *mut App;
        App::init_in_place(p);
        &mut *p
    };
    let mut board = Board { lcd, cursor: None, seed: 0xACE1 };

    firmware::ui::draw_splash(&mut app.disp);
    board.lcd.flush(&mut app.disp);
    buzzer::play(Sound::MoveMade);
    serial::write_flash(flash_str!(b"Chess Prodigy v2.0 Rust\n"));
    game.init();

    let start = fast_task::ticks();
    while fast_task::ticks().wrapping_sub(start) < SPLASH_TICKS {
        hw::background_idle();
    }
    // Presses made while the splash was up are not meant for what follows.
    buttons::discard();
    board
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    hw::halt()
}
