//! `board-sim gdb` without avr-gdb: the register and memory mapping on a
//! tiny assembled program, and a raw GDB remote-protocol session against
//! the server (breakpoint, continue, step, watchpoint, Ctrl-C, memory and
//! register writes, detach).

use board_sim::board::Board;
use board_sim::gdb::arch::{AvrRegId, AvrRegs, G_PACKET_BYTES};
use board_sim::gdb::memory::{self, DATA_BASE, EEPROM_BASE};
use board_sim::gdb::{run_session, GdbTarget};
use emulator::avr::Stop;
use gdbstub::arch::Registers;
use gdbstub::stub::DisconnectReason;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// The program: two stores, then a loop counting r18 into 0x0102.
const PROGRAM: &str = "
    ldi r16, 0x42      ; 0x00
    ldi r17, 0x10      ; 0x02
    sts 0x0100, r16    ; 0x04
    sts 0x0101, r17    ; 0x08
loop:
    inc r18            ; 0x0c
    sts 0x0102, r18    ; 0x0e
    rjmp loop          ; 0x12
";
/// Byte address of `loop`.
const LOOP: u32 = 0x0c;

fn tool(name: &str) -> Command {
    let found = Command::new(name).arg("--version").output().is_ok();
    assert!(found, "`{name}` is not installed: run `cargo xtask setup` (it installs the AVR toolchain)");
    Command::new(name)
}

fn run_tool(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// Assembles `source` for the ATmega644 at address 0; the ELF's bytes.
fn assemble(source: &str) -> Vec<u8> {
    let dir = tempfile::Builder::new().prefix("board-sim-gdb-").tempdir().unwrap();
    let (src, obj, elf): (PathBuf, PathBuf, PathBuf) = (dir.path().join("p.s"), dir.path().join("p.o"), dir.path().join("p.elf"));
    std::fs::write(&src, format!(".text\n.global main\nmain:\n{source}\n")).unwrap();
    run_tool(tool("avr-as").arg("-mmcu=atmega644").arg("-o").arg(&obj).arg(&src));
    run_tool(tool("avr-ld").arg("-mavr5").arg("-o").arg(&elf).arg(&obj));
    std::fs::read(&elf).unwrap()
}

fn board() -> Board {
    Board::from_elf(&assemble(PROGRAM), 8_000_000).expect("the assembled ELF loads")
}

#[test]
fn memory_and_registers_map_to_avr_gdb_spaces() {
    let mut b = board();
    // Flash at 0: the first instruction is `ldi r16, 0x42` = 0xE402.
    let mut buf = [0u8; 4];
    assert_eq!(memory::read(&b.avr, 0, &mut buf), 4);
    assert_eq!(buf, [0x02, 0xE4, 0x10, 0xE1]);
    // Run the two stores (4 instructions) and look at SRAM through 0x800100.
    for _ in 0..4 {
        assert_eq!(b.step(), Stop::Stepped);
    }
    assert_eq!(memory::read(&b.avr, DATA_BASE + 0x100, &mut buf[..2]), 2);
    assert_eq!(&buf[..2], &[0x42, 0x10]);
    // Registers are at the bottom of the data space too, SREG/SP as I/O.
    assert_eq!(memory::read(&b.avr, DATA_BASE + 16, &mut buf[..2]), 2);
    assert_eq!(&buf[..2], &[0x42, 0x10]);
    assert_eq!(memory::read(&b.avr, DATA_BASE + 0x5D, &mut buf[..2]), 2);
    assert_eq!(&buf[..2], &[0xFF, 0x10], "SPL/SPH");
    // A read stops at the end of SRAM (0x10FF) and outside every memory.
    assert_eq!(memory::read(&b.avr, DATA_BASE + 0x10FE, &mut buf), 2);
    assert_eq!(memory::read(&b.avr, 0x90_0000, &mut buf), 0);
    assert_eq!(memory::read(&b.avr, 0xFFFE, &mut buf), 2, "flash ends at 64 KB");

    // Registers in avr-gdb's layout: PC is a byte address.
    let regs = memory::read_regs(&b.avr);
    assert_eq!((regs.r[16], regs.r[17], regs.sp, regs.pc), (0x42, 0x10, 0x10FF, LOOP));
    let mut g = Vec::new();
    regs.gdb_serialize(|byte| g.push(byte.unwrap()));
    assert_eq!(g.len(), G_PACKET_BYTES);
    assert_eq!(&g[35..], &LOOP.to_le_bytes());
    let new = AvrRegs { sreg: 0x81, sp: 0x1000, pc: 0x0e, ..regs };
    memory::write_regs(&mut b.avr, &new);
    assert_eq!((b.avr.sreg(), b.avr.sp(), b.avr.pc()), (0x81, 0x1000, 0x07));
    memory::write_reg(&mut b.avr, AvrRegId::R(18), &[0x33]).unwrap();
    assert_eq!(memory::read_reg(&b.avr, AvrRegId::R(18)), vec![0x33]);
    assert_eq!(memory::read_reg(&b.avr, AvrRegId::Pc), vec![0x0e, 0, 0, 0]);
    assert!(memory::write_reg(&mut b.avr, AvrRegId::Sreg, &[1, 2]).is_err());

    // Writes: SRAM, EEPROM (at 0x810000), flash (re-decoded).
    memory::write(&mut b.avr, DATA_BASE + 0x200, &[1, 2, 3]).unwrap();
    assert_eq!(b.avr.read_data_range(0x200, 3), vec![1, 2, 3]);
    assert_eq!(memory::read(&b.avr, EEPROM_BASE + 0x7FE, &mut buf), 2, "EEPROM ends at 2 KB");
    assert_eq!(&buf[..2], &[0xFF, 0xFF], "erased EEPROM");
    memory::write(&mut b.avr, EEPROM_BASE + 5, &[0xAB]).unwrap();
    assert_eq!(memory::read(&b.avr, EEPROM_BASE + 5, &mut buf[..1]), 1);
    assert_eq!(buf[0], 0xAB);
    memory::write(&mut b.avr, 0x20, &[0x08, 0x95]).unwrap(); // ret
    assert_eq!(b.avr.flash_word(0x10), 0x9508);
    assert!(b.avr.disassemble(0x10).contains("ret"));
    assert!(memory::write(&mut b.avr, DATA_BASE + 0x10FF, &[0, 0]).is_err(), "past RAMEND");
    assert!(memory::write(&mut b.avr, 0x85_0000, &[0]).is_err());
}

/// A watchpoint on PORTC, whose writes also move the LCD's E strobe (a pin
/// the board stops on to let the LCD answer), still stops the board.
#[test]
fn watchpoint_on_the_lcd_strobe_port_stops_the_board() {
    let source = "
    sbi 0x07, 2        ; DDRC: LCD E (PC2) is an output
loop:
    sbi 0x08, 2        ; PORTC: E high
    cbi 0x08, 2        ; E low
    rjmp loop
";
    let mut b = Board::from_elf(&assemble(source), 8_000_000).unwrap();
    b.avr.add_watchpoint(0x28..=0x28, emulator::WatchKind::Write);
    for expected_pc in [2u32, 3, 2] {
        let stop = b.run_for(1000);
        assert!(matches!(stop, Stop::Watchpoint { addr: 0x28, .. }), "{stop:?}");
        assert_eq!(b.avr.pc(), expected_pc, "stopped after the access");
    }
}

/// A minimal GDB remote-protocol client (with acks, as gdb starts).
struct Client {
    s: TcpStream,
}

impl Client {
    fn send(&mut self, body: &str) {
        let sum = body.bytes().fold(0u8, |a, b| a.wrapping_add(b));
        self.s.write_all(format!("${body}#{sum:02x}").as_bytes()).unwrap();
        let mut ack = [0u8];
        self.s.read_exact(&mut ack).unwrap();
        assert_eq!(ack[0], b'+', "ack for {body:?}");
    }

    fn recv(&mut self) -> String {
        let mut byte = [0u8];
        loop {
            self.s.read_exact(&mut byte).expect("a reply before the timeout");
            if byte[0] == b'$' {
                break;
            }
        }
        let mut body = Vec::new();
        loop {
            self.s.read_exact(&mut byte).unwrap();
            if byte[0] == b'#' {
                break;
            }
            body.push(byte[0]);
        }
        let mut sum = [0u8; 2];
        self.s.read_exact(&mut sum).unwrap();
        self.s.write_all(b"+").unwrap();
        // Run-length encoding: `c*N` is c and N - 29 more of it.
        let mut out = Vec::new();
        let mut i = 0;
        while i < body.len() {
            if body[i] == b'*' && i + 1 < body.len() {
                let last = *out.last().expect("a run repeats something");
                out.extend(std::iter::repeat_n(last, (body[i + 1] - 29) as usize));
                i += 2;
            } else {
                out.push(body[i]);
                i += 1;
            }
        }
        String::from_utf8(out).unwrap()
    }

    fn ask(&mut self, body: &str) -> String {
        self.send(body);
        self.recv()
    }
}

/// Serves one session on a fresh port (the board is not `Send`: the
/// server runs here, the client in a thread); returns the target and how
/// the session ended, after the client is done.
fn with_session(client: impl FnOnce(Client) + Send + 'static) -> (GdbTarget, Result<DisconnectReason, String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let mut target = GdbTarget::new(board(), false, false);
    let client = std::thread::spawn(move || {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        client(Client { s })
    });
    let (stream, _) = listener.accept().unwrap();
    let result = run_session(&mut target, stream);
    if let Err(panic) = client.join() {
        std::panic::resume_unwind(panic);
    }
    (target, result)
}

fn hex_le(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn remote_protocol_session() {
    let (target, result) = with_session(client_session);
    assert!(matches!(result, Ok(DisconnectReason::Disconnect)), "{result:?}");
    assert!(target.board.avr.breakpoints().is_empty() && target.board.avr.watchpoints().is_empty(), "a session leaves nothing set");
    assert_eq!(target.board.avr.reg(16), 0x99);
}

fn client_session(mut c: Client) {
    let stop = c.ask("?");
    assert!(stop.starts_with('S') || stop.starts_with('T'), "initial stop reply: {stop}");

    // g: 39 bytes; SP = 0x10FF, PC = 0.
    let g = c.ask("g");
    assert_eq!(g.len(), 2 * G_PACKET_BYTES, "{g}");
    assert_eq!(&g[66..], "ff1000000000", "SREG, SP, PC: {g}");

    // Breakpoint at `loop` (byte address), continue, stop there.
    assert_eq!(c.ask(&format!("Z0,{LOOP:x},2")), "OK");
    let stop = c.ask("c");
    assert!(stop.starts_with("T05"), "breakpoint stop: {stop}");
    assert_eq!(c.ask("p22"), hex_le(&LOOP.to_le_bytes()), "PC (register 34) at the breakpoint");
    assert_eq!(c.ask("p10"), "42", "r16");
    assert_eq!(c.ask("m800100,2"), "4210", "SRAM through 0x800100");
    assert_eq!(c.ask("m0,2"), "02e4", "flash at 0");

    // Single step: `inc r18` at the breakpoint executes.
    let stop = c.ask("s");
    assert!(stop.starts_with('S') || stop.starts_with('T'), "{stop}");
    assert_eq!(c.ask("p22"), hex_le(&(LOOP + 2).to_le_bytes()));
    assert_eq!(c.ask("p12"), "01", "r18 after one inc");
    assert_eq!(c.ask(&format!("z0,{LOOP:x},2")), "OK");

    // Write watchpoint on 0x0102: stops after the `sts`.
    assert_eq!(c.ask("Z2,800102,1"), "OK");
    let stop = c.ask("c");
    assert!(stop.starts_with("T05") && stop.contains("watch:800102"), "watchpoint stop: {stop}");
    assert_eq!(c.ask("m800102,1"), "01");
    assert_eq!(c.ask("p22"), hex_le(&0x12u32.to_le_bytes()), "stopped after the sts");
    assert_eq!(c.ask("z2,800102,1"), "OK");

    // Continue with nothing to stop it, then Ctrl-C; twice.
    for _ in 0..2 {
        c.send("c");
        std::thread::sleep(Duration::from_millis(100));
        c.s.write_all(&[0x03]).unwrap();
        let stop = c.recv();
        assert!(stop.starts_with("T02") || stop.starts_with("S02"), "SIGINT stop: {stop}");
    }

    // Register and memory writes.
    assert_eq!(c.ask("P10=99"), "OK");
    assert_eq!(c.ask("p10"), "99");
    assert_eq!(c.ask("M800200,2:abcd"), "OK");
    assert_eq!(c.ask("m800200,2"), "abcd");
    assert_eq!(c.ask("m810000,2"), "ffff", "EEPROM");
    assert!(c.ask("m900000,2").starts_with('E'), "no memory there");
    // `monitor time`: console output packets (O + hex), then OK.
    c.send(&format!("qRcmd,{}", hex_le(b"time")));
    let mut console = String::new();
    loop {
        let reply = c.recv();
        if reply == "OK" {
            break;
        }
        let hex = reply.strip_prefix('O').unwrap_or_else(|| panic!("console output: {reply}"));
        let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
        console.push_str(&String::from_utf8(bytes).unwrap());
    }
    assert!(console.contains("cycles") && console.contains("8000000 Hz"), "{console}");
    let cycles: u64 = console.split_whitespace().next().unwrap().parse().unwrap();
    assert!(cycles > 100_000, "the loop ran flat out until Ctrl-C: {console}");

    assert_eq!(c.ask("D"), "OK");
}

/// Runs `board-sim gdb ARGS`, which must fail: its exit code and stderr.
fn gdb_cli_fails(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_board-sim")).arg("gdb").args(args).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn cli_errors_are_one_clear_line() {
    let missing = std::ffi::OsStr::new("/nonexistent/prodigy.elf");
    let (code, err) = gdb_cli_fails(&[missing]);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("board-sim: error: cannot read /nonexistent/prodigy.elf"), "{err}");

    // This test's own executable is an ELF, but not for the AVR.
    let host_elf = std::env::current_exe().unwrap();
    let (code, err) = gdb_cli_fails(&[host_elf.as_os_str()]);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("ELF") && err.contains("AVR"), "{err}");

    let dir = tempfile::Builder::new().prefix("board-sim-gdb-cli-").tempdir().unwrap();
    let elf = dir.path().join("p.elf");
    std::fs::write(&elf, assemble(PROGRAM)).unwrap();
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let (code, err) = gdb_cli_fails(&[elf.as_os_str(), "--port".as_ref(), port.as_ref()]);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("board-sim: error: cannot listen on 127.0.0.1:{port}")), "{err}");
}
