//! avr-gdb against `board-sim gdb` running the real firmware: connect, read
//! registers, break at `main`, continue, read SRAM, single-step, Ctrl-C a
//! running target (SIGINT to avr-gdb, as a terminal sends it), a monitor
//! command, detach.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Kills the process when the test ends, however it ends.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn firmware_elf() -> PathBuf {
    let elf = std::env::var_os("PRODIGY_ELF")
        .expect("PRODIGY_ELF is not set: run this test through `cargo xtask test` (it builds the firmware and sets it)");
    let elf = PathBuf::from(elf);
    assert!(elf.is_file(), "PRODIGY_ELF={} is not a file: run `cargo xtask firmware`", elf.display());
    elf
}

fn require(tool: &str) {
    let found = Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(found, "`{tool}` is not installed: run `cargo xtask setup` (it installs gdb-avr)");
}

/// The lines of a child's stdout, as they come.
fn lines_of(stream: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits for a line containing `needle`; returns every line read.
fn wait_for(rx: &mpsc::Receiver<String>, needle: &str, seen: &mut Vec<String>, timeout: Duration) {
    let end = Instant::now() + timeout;
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) => {
                let found = line.contains(needle);
                seen.push(line);
                if found {
                    return;
                }
            }
            Err(_) => break,
        }
    }
    panic!("no line containing {needle:?} within {timeout:?}; got:\n{}", seen.join("\n"));
}

/// The byte address in an `info registers pc` line (`pc 0x191 0x322 <...>`).
fn pc_byte_address(line: &str) -> u32 {
    let field = line.split_whitespace().nth(2).unwrap_or_else(|| panic!("pc line: {line}"));
    u32::from_str_radix(field.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("pc line: {line}"))
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn avr_gdb_debugs_the_firmware() {
    let elf = firmware_elf();
    require("avr-gdb");

    let mut server = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_board-sim"))
            .args(["gdb", "--port", "0", "--quiet"])
            .arg(&elf)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start board-sim gdb"),
    );
    let server_out = lines_of(server.0.stdout.take().unwrap());
    let first = server_out.recv_timeout(Duration::from_secs(30)).expect("board-sim gdb prints its address first");
    let port: u16 = first
        .rsplit_once(':')
        .and_then(|(_, p)| p.parse().ok())
        .unwrap_or_else(|| panic!("first line should be `listening on 127.0.0.1:PORT`, got {first:?}"));

    let commands = [
        format!("target remote :{port}"),
        "info registers pc".into(),
        "break main".into(),
        "continue".into(),
        "x/4xb 0x800100".into(),
        "stepi".into(),
        "info registers pc".into(),
        "delete".into(),
        // Runs until the SIGINT below interrupts it (as Ctrl-C would).
        "continue".into(),
        "info registers pc".into(),
        "monitor lcd".into(),
        "detach".into(),
    ];
    let mut gdb = Command::new("avr-gdb");
    gdb.args(["--batch", "-nx"]);
    for c in &commands {
        gdb.arg("-ex").arg(c);
    }
    let mut gdb = KillOnDrop(
        gdb.arg(&elf).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("start avr-gdb"),
    );
    let out = lines_of(gdb.0.stdout.take().unwrap());
    let err = lines_of(gdb.0.stderr.take().unwrap());
    let mut seen = Vec::new();
    wait_for(&out, "Breakpoint 1,", &mut seen, Duration::from_secs(60));
    // gdb goes on to `continue` at once; give it time to be running, then interrupt.
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Command::new("kill").args(["-INT", &gdb.0.id().to_string()]).status().expect("run kill");
    assert!(sent.success(), "kill -INT avr-gdb");
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        if gdb.0.try_wait().unwrap().is_some() {
            break;
        }
        assert!(Instant::now() < end, "avr-gdb did not finish; so far:\n{}", seen.join("\n"));
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(100));
    seen.extend(out.try_iter());
    seen.extend(err.try_iter());
    let text = seen.join("\n");
    let status = gdb.0.wait().unwrap();
    assert!(status.success(), "avr-gdb failed ({status}):\n{text}");

    let pcs: Vec<u32> = seen.iter().filter(|l| l.starts_with("pc ")).map(|l| pc_byte_address(l)).collect();
    assert_eq!(pcs.len(), 3, "three `info registers pc` answers:\n{text}");
    assert_eq!(pcs[0], 0, "halted at the reset vector when gdb connects:\n{text}");
    assert!(text.contains("Breakpoint 1 at 0x"), "break main:\n{text}");
    let hit = seen.iter().find(|l| l.starts_with("Breakpoint 1,")).unwrap();
    assert!(hit.contains("main"), "stopped in main: {hit}");
    let main_addr = u32::from_str_radix(
        text.split("Breakpoint 1 at 0x").nth(1).unwrap().split(':').next().unwrap(),
        16,
    )
    .unwrap();
    assert_ne!(pcs[1], main_addr, "stepi moved on from main:\n{text}");
    let sram = seen.iter().find(|l| l.starts_with("0x800100")).unwrap_or_else(|| panic!("x/4xb 0x800100:\n{text}"));
    let bytes = sram.split(':').nth(1).unwrap().split_whitespace().filter(|w| w.starts_with("0x")).count();
    assert_eq!(bytes, 4, "four SRAM bytes: {sram}");
    assert!(text.contains("Program received signal SIGINT"), "Ctrl-C stopped the running target:\n{text}");
    let lcd = seen.iter().filter(|l| l.starts_with('[') && l.ends_with(']') && l.chars().count() == 18).count();
    assert_eq!(lcd, 2, "monitor lcd shows two 16-character lines:\n{text}");
    assert!(text.contains("detached"), "detach:\n{text}");
    assert!(!text.contains("Remote communication error") && !text.contains("Ignoring packet error"), "{text}");
}
