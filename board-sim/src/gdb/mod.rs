//! `board-sim gdb`: a GDB remote-protocol server, so that avr-gdb can
//! debug the firmware running on the emulated board.
//!
//! The board (LCD, buttons, buzzer) runs as in every other front end; gdb
//! sees the ATmega644 the way avr-gdb sees a chip behind a hardware
//! debugger: registers in avr-gdb's layout, flash at 0, data at 0x800000,
//! EEPROM at 0x810000 ([`memory`]), software breakpoints (kept by the
//! emulator, flash is not patched), data watchpoints (`watch`, `rwatch`,
//! `awatch` as hardware watchpoints), single and range stepping, and
//! Ctrl-C: a running target is run in short slices and the connection is
//! polled between them. `monitor help` lists the board's own commands
//! (LCD text, buttons, reset, time).
//!
//! The CPU is halted at reset until the first gdb connects. After a
//! `detach` (or a lost connection) the board runs on, in real time, and
//! the next gdb can attach; `kill` powers the board off and on again, halted.

pub mod arch;
pub mod memory;
pub mod target;

use crate::board::Board;
use gdbstub::common::Signal;
use gdbstub::conn::{Connection, ConnectionExt};
use gdbstub::stub::run_blocking::{BlockingEventLoop, Event, WaitForStopReasonError};
use gdbstub::stub::{DisconnectReason, GdbStub};
use gdbstub::target::Target;
use std::io::Write as _;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::time::Duration;
pub use target::{GdbTarget, StopReason};

/// What `board-sim gdb` was asked for.
#[derive(Clone, Debug)]
pub struct GdbOptions {
    pub elf: PathBuf,
    /// TCP port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    pub mhz: f64,
    /// Run flat out instead of pacing emulated time to the wall clock.
    pub fast: bool,
    /// Echo LCD changes on stderr.
    pub echo_lcd: bool,
}

/// Loads the ELF, listens, and serves gdb sessions one after another until
/// the process is killed. Errors before the first session (unreadable
/// file, not an AVR ELF, port in use) are one line.
pub fn serve(opts: &GdbOptions) -> Result<(), String> {
    if !(opts.mhz > 0.0 && opts.mhz <= 100.0) {
        return Err(format!("--mhz {} is out of range (0 < MHz <= 100)", opts.mhz));
    }
    let clock_hz = (opts.mhz * 1e6).round() as u32;
    let path = &opts.elf;
    let elf = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let new_board = || Board::from_elf(&elf, clock_hz).map_err(|e| format!("{}: {e}", path.display()));
    let board = new_board()?;
    let listener = TcpListener::bind(("127.0.0.1", opts.port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", opts.port))?;
    let port = listener.local_addr().map_err(|e| format!("cannot listen: {e}"))?.port();
    // The first line on stdout is the address (scripts using --port 0 read it).
    println!("listening on 127.0.0.1:{port}");
    let _ = std::io::stdout().flush();
    eprintln!(
        "board-sim: the CPU is halted at reset; connect with: avr-gdb {} -ex 'target remote :{port}'",
        path.display()
    );

    let mut target = GdbTarget::new(board, !opts.fast, opts.echo_lcd);
    let mut running = false;
    loop {
        let stream = accept(&listener, &mut target, running)?;
        let result = run_session(&mut target, stream);
        running = match result {
            Ok(DisconnectReason::Kill) => {
                target.replace_board(new_board()?);
                eprintln!("board-sim: killed: power-on reset, halted until avr-gdb connects");
                false
            }
            Ok(reason) => {
                eprintln!("board-sim: gdb disconnected ({reason:?}): the board runs on; waiting for avr-gdb");
                true
            }
            Err(e) => {
                eprintln!("board-sim: gdb session ended: {e}; the board runs on; waiting for avr-gdb");
                true
            }
        };
    }
}

/// Serves one gdb connection until gdb detaches, kills or the connection
/// fails. Breakpoints and watchpoints do not outlive the session.
pub fn run_session(target: &mut GdbTarget, stream: TcpStream) -> Result<DisconnectReason, String> {
    target.clear_debug_state();
    let result = GdbStub::new(stream).run_blocking::<EventLoop>(target);
    target.clear_debug_state();
    result.map_err(|e| e.to_string())
}

/// Waits for a gdb connection, running the board meanwhile if `running`.
fn accept(listener: &TcpListener, target: &mut GdbTarget, mut running: bool) -> Result<TcpStream, String> {
    listener.set_nonblocking(true).map_err(|e| format!("listener: {e}"))?;
    loop {
        match listener.accept() {
            Ok((stream, from)) => {
                stream.set_nonblocking(false).map_err(|e| format!("connection: {e}"))?;
                eprintln!("board-sim: avr-gdb connected from {from}");
                return Ok(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if running {
                    running = target.free_run_slice();
                } else {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("accepting a connection: {e}")),
        }
    }
}

/// Runs the target in slices, polling the connection between them.
pub enum EventLoop {}

impl BlockingEventLoop for EventLoop {
    type Target = GdbTarget;
    type Connection = TcpStream;
    type StopReason = StopReason;

    #[allow(clippy::type_complexity)]
    fn wait_for_stop_reason(
        target: &mut GdbTarget,
        conn: &mut TcpStream,
    ) -> Result<Event<StopReason>, WaitForStopReasonError<<GdbTarget as Target>::Error, <TcpStream as Connection>::Error>>
    {
        loop {
            if let Some(reason) = target.run_slice() {
                return Ok(Event::TargetStopped(reason));
            }
            // Data while running is Ctrl-C (0x03) or a closed connection.
            if <TcpStream as ConnectionExt>::peek(conn).map_or(true, |b| b.is_some()) {
                let byte = <TcpStream as ConnectionExt>::read(conn).map_err(WaitForStopReasonError::Connection)?;
                return Ok(Event::IncomingData(byte));
            }
        }
    }

    fn on_interrupt(_target: &mut GdbTarget) -> Result<Option<StopReason>, String> {
        Ok(Some(StopReason::Signal(Signal::SIGINT)))
    }
}
