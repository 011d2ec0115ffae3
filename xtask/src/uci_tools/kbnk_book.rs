//! `cargo xtask kbnk-book`: the firmware's KBNK book
//! (`firmware/src/engine/kbnk_book.rs`) from play-out dumps.
//!
//! `cargo xtask endgames --endings kbnk --defender tablebase --dump FILE`
//! writes a line for each of the strong side's moves with the plies to
//! mate it lost against the tables' best. Summed over the dumps by
//! position up to the colour-keeping symmetries, the positions that lost
//! most get an entry (two or four if the lone king lies on the book's
//! triangle's diagonal sides, one for each way the firmware may see it):
//! the tables' fastest move there, the lowest in the book's form among
//! equals, so that a rebuild from the same dumps is the same table.

use super::tablebase::Tablebase;
use crate::util::{root, Result};
use firmware::chess::Position;
use firmware::engine::kbnk_book::{entry, in_triangle, pack, probe, split, Canonical};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position as _, Role, Square};
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Play-out dumps (`cargo xtask endgames --endings kbnk --defender tablebase --dump FILE`)
    /// or summaries of them (`--summary`)
    #[arg(required_unless_present = "with_book")]
    dumps: Vec<PathBuf>,
    /// Dumps of play-outs by a build with this build's KBNK book (the
    /// `kbnk_book_table.rs` it was compiled with). Where that book
    /// answers, their moves are the book's and say nothing of the
    /// search: such a position's visits there are counted at the plies
    /// lost a visit that the other dumps show for it (without this, a
    /// rebuild from them demotes the book's own positions)
    #[arg(long, num_args = 1..)]
    with_book: Vec<PathBuf>,
    /// Entries at most (3 bytes of flash each, packed; the firmware holds 400)
    #[arg(long, default_value_t = 400)]
    entries: usize,
    /// Plies to mate lost in a position, summed over the dumps, that earn it an entry
    #[arg(long, default_value_t = 8)]
    min_lost: u32,
    /// The table to write (default: the firmware's)
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also write the positions that lost at least `--min-lost` plies, one
    /// line each in the dumps' form (move `*`, the plies lost summed, the
    /// visits), a readable source that rebuilds the same table
    #[arg(long)]
    summary: Option<PathBuf>,
}

/// A position of the dumps, up to symmetry.
struct Seen {
    /// Plies to mate lost there, summed.
    lost: u32,
    visits: u32,
    /// Of the visits, those of `--with-book` dumps where the book answered.
    book_visits: u32,
    /// One of its FENs.
    fen: String,
}

/// The real square `s` in the firmware's 0x88 form.
pub(crate) fn sq88(s: Square) -> u8 {
    (s.rank() as u8) << 4 | s.file() as u8
}

/// `fen`'s views (the side to move strong) under the four colour-keeping
/// symmetries, None if it is not KBNK; an error if it is no position.
fn views(fen: &str) -> Result<Option<[Canonical; 4]>> {
    let pos = Position::from_fen(fen.as_bytes()).map_err(|e| format!("bad FEN `{fen}`: {e:?}"))?;
    let strong = pos.side_to_move();
    let views = [0, 1, 2, 3].map(|t| Canonical::in_view(&pos, strong, t));
    Ok(views.iter().all(Option::is_some).then(|| views.map(Option::unwrap)))
}

/// The book's entry for the KBNK position `pos` (strong side to move):
/// the tables' fastest move and the plies to mate after it.
pub(crate) fn best_entry(table: &Tablebase, pos: &Chess, c: &Canonical) -> Option<([u8; 4], u8)> {
    pos.legal_moves()
        .into_iter()
        .filter_map(|m| {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let plies = table.plies_to_mate(&after)?;
            let piece = match m.role() {
                Role::King => 0,
                Role::Bishop => 1,
                _ => 2,
            };
            Some((plies, entry(c.key(), piece, c.code(sq88(m.to())))))
        })
        .min_by_key(|&(plies, e)| (plies, split(e).1, split(e).2))
        .map(|(plies, e)| (e, plies))
}

/// The dumps summed by position up to symmetry.
struct Dumps {
    seen: HashMap<[u8; 4], Seen>,
    /// KBNK moves read.
    lines: usize,
    /// Dump files read (a summary's counted as it says).
    files: usize,
}

/// Reads and sums the dumps (or summaries of them) at `paths` and the
/// dumps at `with_book`, made with this build's book (`--with-book`).
fn read_dumps(paths: &[PathBuf], with_book: &[PathBuf]) -> Result<Dumps> {
    let mut seen: HashMap<[u8; 4], Seen> = HashMap::new();
    // Moves and dump files read, a summary's counted as it says.
    let mut lines = 0usize;
    let mut files = 0usize;
    let marked = paths.iter().map(|p| (p, false)).chain(with_book.iter().map(|p| (p, true)));
    for (path, by_book) in marked {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let summed = summed_over(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let (dumps, moves) = summed.unwrap_or((1, 0));
        files += dumps;
        lines += moves;
        for (n, line) in text.lines().enumerate() {
            if line.starts_with('#') {
                continue; // a summary's notes
            }
            let bad = || format!("{}:{}: not a `endgames --dump` line: {line}", path.display(), n + 1);
            let fields: Vec<&str> = line.split('\t').collect();
            if fields.len() != 5 {
                return Err(bad());
            }
            let lost: u32 = fields[2].parse().map_err(|_| bad())?;
            // A summary's line: its visits in the best move's place.
            let visits: u32 = if fields[1] == "*" { fields[3].parse().map_err(|_| bad())? } else { 1 };
            let Some(views) = views(fields[0]).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))? else {
                continue; // another ending's move
            };
            if summed.is_none() {
                lines += visits as usize;
            }
            let booked = by_book && {
                let pos = Position::from_fen(fields[0].as_bytes()).expect("read by views()");
                !probe(&pos, pos.side_to_move()).0.is_none()
            };
            if booked && (lost > 0 || summed.is_some()) {
                return Err(format!("{}:{}: --with-book: lost plies (or summed) where this build's book answers: not a dump made with this book", path.display(), n + 1));
            }
            let orbit = views.iter().map(|c| c.key()).min().expect("four views");
            let s = seen.entry(orbit).or_insert_with(|| Seen { lost: 0, visits: 0, book_visits: 0, fen: fields[0].to_string() });
            s.lost += lost;
            s.visits += visits;
            s.book_visits += u32::from(booked) * visits;
        }
    }
    if lines == 0 {
        return Err("the dumps hold no KBNK move".into());
    }
    // The book's visits at the position's rate in the visits searched
    // (none searched: no rate to go by, nothing added).
    for s in seen.values_mut() {
        let searched = s.visits - s.book_visits;
        if s.book_visits > 0 && searched > 0 {
            s.lost += (u64::from(s.lost) * u64::from(s.book_visits) / u64::from(searched)) as u32;
        }
    }
    Ok(Dumps { seen, lines, files })
}

pub fn run(args: Args) -> Result {
    let Dumps { seen, lines, files } = read_dumps(&args.dumps, &args.with_book)?;
    let total: u32 = seen.values().map(|s| s.lost).sum();
    let mut worst: Vec<&Seen> = seen.values().filter(|s| s.lost >= args.min_lost).collect();
    worst.sort_by(|a, b| b.lost.cmp(&a.lost).then(a.fen.cmp(&b.fen)));
    if let Some(path) = &args.summary {
        std::fs::write(path, summary_text(&worst, files, lines, args.min_lost)).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("{} positions written to {}", worst.len(), path.display());
    }
    println!("== solving KBNK");
    let table = Tablebase::solve(&[Role::Bishop, Role::Knight])?;
    let mut entries: Vec<[u8; 4]> = Vec::new();
    let mut covered = 0;
    for s in &worst {
        let pos: Chess = s.fen.parse::<Fen>().ok().and_then(|f| f.into_position(CastlingMode::Standard).ok()).ok_or_else(|| format!("bad FEN in the dumps: {}", s.fen))?;
        let mut new: Vec<[u8; 4]> = Vec::new();
        let mut plies = 0;
        for c in views(&s.fen)?.expect("KBNK when read") {
            if in_triangle(c.key()[0]) {
                if let Some((e, p)) = best_entry(&table, &pos, &c) {
                    if !new.contains(&e) {
                        new.push(e);
                    }
                    plies = p;
                }
            }
        }
        if new.is_empty() {
            continue; // not won
        }
        if entries.len() + new.len() > args.entries {
            break;
        }
        println!("{:5} plies lost in {:4} visits  {}  ({plies} plies to mate after the book's move; {} entries)", s.lost, s.visits, s.fen, new.len());
        covered += s.lost;
        entries.extend(new);
    }
    entries.sort_unstable_by_key(|&e| split(e));
    let out = args.out.clone().unwrap_or_else(|| root().join("firmware/src/engine/kbnk_book_table.rs"));
    std::fs::write(&out, table_source(&entries, &args, lines, covered, total)?).map_err(|e| format!("{}: {e}", out.display()))?;
    println!(
        "{} entries ({} B of flash with their starts) cover {covered} of the {total} plies to mate lost in {lines} moves of {} dumps ({:.0}%); written to {}",
        entries.len(),
        66 + 3 * entries.len(),
        files,
        100.0 * covered as f64 / total.max(1) as f64,
        out.display()
    );
    Ok(())
}

/// `--summary`'s text: the positions `worst` of `files` dumps of `moves`
/// moves, those that lost at least `min_lost` plies.
fn summary_text(worst: &[&Seen], files: usize, moves: usize, min_lost: u32) -> String {
    let mut text = format!(
        "# KBNK positions where the strong side lost plies to mate against the tables' defence,\n\
         # up to symmetry, the worst first: FEN, *, plies lost summed, visits, 0. Summed over\n\
         # {files} {SUMMED_FILES} ({moves} moves)\n\
         # by `cargo xtask kbnk-book --summary`; positions that lost at least {min_lost} plies\n\
         # (where a `--with-book` dump played the book's move, at the position's rate elsewhere).\n"
    );
    text.extend(worst.iter().map(|s| format!("{}\t*\t{}\t{}\t0\n", s.fen, s.lost, s.visits)));
    text
}

/// What a summary's third line says it sums: `# N {SUMMED_FILES} (M moves)`.
const SUMMED_FILES: &str = "`cargo xtask endgames --endings kbnk --defender tablebase --dump` files";

/// A summary's note of what it sums (`--summary`'s third line): the dump
/// files and their moves, so that a summary summed again counts them, not
/// its own lines (which hold only the positions that lost most). None for
/// a dump (no such note among its leading comments); an error for a note
/// whose counts do not read.
fn summed_over(text: &str) -> Result<Option<(usize, usize)>> {
    let Some(line) = text.lines().take_while(|l| l.starts_with('#')).find(|l| l.contains(SUMMED_FILES)) else {
        return Ok(None);
    };
    let counts = || {
        let (files, moves) = line.strip_prefix("# ")?.split_once(&format!(" {SUMMED_FILES} ("))?;
        Some((files.parse().ok()?, moves.strip_suffix(" moves)")?.parse().ok()?))
    };
    counts().map(Some).ok_or_else(|| format!("a summary's counts that do not read: {line}"))
}

/// The table as Rust source for `kbnk_book.rs`'s `include!`: the
/// entries packed ([`pack`]), 3 bytes each.
fn table_source(entries: &[[u8; 4]], args: &Args, moves: usize, covered: u32, total: u32) -> Result<String> {
    let name = |p: &PathBuf| p.strip_prefix(root()).unwrap_or(p).display().to_string();
    let mut sources: Vec<String> = args.dumps.iter().map(name).collect();
    if !args.with_book.is_empty() {
        sources.push("--with-book".into());
        sources.extend(args.with_book.iter().map(name));
    }
    let (starts, bytes) = pack(entries)?;
    let list = |b: &[u8]| b.iter().map(u8::to_string).collect::<Vec<_>>().join(", ");
    let starts: Vec<String> = starts.iter().map(u16::to_string).collect();
    let mut s = format!(
        "// Generated by `cargo xtask kbnk-book {} --entries {} --min-lost {}`:\n\
         // the positions of {covered} of the {total} plies to mate lost in its {moves} moves.\n\
         // {} entries packed by `kbnk_book::pack`: where each lone king's square's entries\n\
         // start, then 3 bytes an entry (the strong king, bishop and knight, the move's step).\n\
         crate::progmem! {{\n    static STARTS: [u16; 33] = [{}];\n    static BOOK: [u8; {}] = [\n",
        sources.join(" "),
        args.entries,
        args.min_lost,
        entries.len(),
        starts.join(", "),
        bytes.len()
    );
    for row in bytes.chunks(24) {
        s += &format!("        {},\n", list(row));
    }
    s += "    ];\n}\n";
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uci_tools::tablebase::kbnk_for_tests;
    use firmware::chess::Color as FwColor;
    use firmware::engine::kbnk_book::entries;
    use shakmaty::{Bitboard, Board, Color, Piece, Setup};

    /// The canonical position of `key`, white strong and to move.
    fn position_of(key: [u8; 4]) -> Chess {
        let sq = |i: usize| Square::new(u32::from(key[i]));
        let mut board = Board::empty();
        board.set_piece_at(sq(0), Piece { color: Color::Black, role: Role::King });
        board.set_piece_at(sq(1), Piece { color: Color::White, role: Role::King });
        board.set_piece_at(sq(2), Piece { color: Color::White, role: Role::Bishop });
        board.set_piece_at(sq(3), Piece { color: Color::White, role: Role::Knight });
        let mut setup = Setup::empty();
        setup.board = board;
        setup.turn = Color::White;
        setup.position(CastlingMode::Standard).unwrap_or_else(|e| panic!("key {key:?}: {e}"))
    }

    /// `pos` under the board symmetry `t` (0..8: the four turns and their
    /// mirrors), colours swapped (ranks mirrored) if `swap`.
    fn transformed(pos: &Chess, t: u8, swap: bool) -> Chess {
        let f = |mut s: Square| {
            if t & 1 != 0 {
                s = s.flip_horizontal();
            }
            if t & 2 != 0 {
                s = s.flip_vertical();
            }
            if t & 4 != 0 {
                s = s.flip_diagonal();
            }
            if swap {
                s = s.flip_vertical();
            }
            s
        };
        let mut board = Board::empty();
        for (s, p) in pos.board().clone() {
            board.set_piece_at(f(s), Piece { color: if swap { !p.color } else { p.color }, role: p.role });
        }
        let mut setup = Setup::empty();
        setup.board = board;
        setup.turn = if swap { !pos.turn() } else { pos.turn() };
        setup.position(CastlingMode::Standard).unwrap()
    }

    fn firmware_position(pos: &Chess) -> Position {
        Position::from_fen(Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string().as_bytes()).unwrap()
    }

    #[test]
    fn every_entry_is_the_tables_fastest_move_under_every_symmetry() {
        let table = kbnk_for_tests();
        let book = entries();
        assert!(book.len() >= 400, "the book has {} entries", book.len());
        assert!(book.windows(2).all(|w| split(w[0]).0 < split(w[1]).0), "sorted, one entry a position");
        for &e in &book {
            let key = split(e).0;
            let canon = position_of(key);
            assert!((canon.board().by_piece(Piece { color: Color::White, role: Role::Bishop }) & Bitboard::DARK_SQUARES).any());
            for swap in [false, true] {
                for t in 0..8 {
                    let pos = transformed(&canon, t, swap);
                    let fw = firmware_position(&pos);
                    let strong = if swap { FwColor::Black } else { FwColor::White };
                    // The firmware sees it as this entry or (the lone king
                    // on the triangle's diagonal sides) as another image's.
                    let c = Canonical::of(&fw, strong).unwrap();
                    let seen = book.iter().find(|&&b| split(b).0 == c.key()).copied();
                    assert!(seen.is_some(), "{} is not in the book as {:?}", Fen::from_position(&pos, shakmaty::EnPassantMode::Legal), c.key());
                    // The book's move is the builder's choice, and the tables'
                    // fastest.
                    assert_eq!(best_entry(table, &pos, &c).map(|b| b.0), seen);
                    let m = probe(&fw, strong).0;
                    assert!(!m.is_none());
                    let mv = pos.legal_moves().into_iter().find(|mv| sq88(mv.from().unwrap()) == m.from() && sq88(mv.to()) == m.to()).unwrap();
                    let mut after = pos.clone();
                    after.play_unchecked(mv);
                    let fastest = pos
                        .legal_moves()
                        .into_iter()
                        .filter_map(|m| {
                            let mut a = pos.clone();
                            a.play_unchecked(m);
                            table.plies_to_mate(&a)
                        })
                        .min();
                    assert_eq!(table.plies_to_mate(&after), fastest);
                }
            }
        }
    }

    /// A dump line that is not one, or whose FEN is no position, stops
    /// the build with its file and line; nothing is written.
    #[test]
    fn bad_dump_lines_are_refused() {
        let dir = std::env::temp_dir().join(format!("kbnk_book_test_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("table.rs");
        for (text, want) in [("garbage\n", "1: not a `endgames --dump` line"), ("# note\n8/8/8/xx/8/8/8/8 w - - 0 1\t*\t5\t1\t0\n", "2: bad FEN")] {
            let dump = dir.join("dump.tsv");
            std::fs::write(&dump, text).unwrap();
            let args = Args { dumps: vec![dump.clone()], with_book: vec![], entries: 50, min_lost: 8, out: Some(out.clone()), summary: None };
            let err = run(args).unwrap_err();
            assert!(err.contains(&format!("{}:{want}", dump.display())), "{err}");
            assert!(!out.exists());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A summary summed again counts the dumps and moves it says it
    /// sums, with a dump's own lines on top.
    #[test]
    fn a_summary_counts_the_dumps_it_sums() {
        let dir = std::env::temp_dir().join(format!("kbnk_book_summary_test_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (summary, dump) = (dir.join("summary.tsv"), dir.join("dump.tsv"));
        std::fs::write(
            &summary,
            "# KBNK positions ...\n# up to symmetry ...\n\
             # 24 `cargo xtask endgames --endings kbnk --defender tablebase --dump` files (141802 moves)\n\
             # by `cargo xtask kbnk-book --summary`; ...\n\
             8/8/8/8/4n1b1/3k4/8/4K3 b - - 10 6\t*\t6228\t1557\t0\n",
        )
        .unwrap();
        std::fs::write(&dump, "8/8/8/8/4n1b1/3k4/8/4K3 b - - 10 6\te4c5\t4\t30\t34\n8/8/8/4k3/8/8/8/KBN5 w - - 0 1\ta1b2\t0\t20\t20\n").unwrap();
        let d = read_dumps(&[summary, dump], &[]).unwrap();
        assert_eq!((d.files, d.lines), (25, 141804));
        let worst: Vec<&Seen> = d.seen.values().filter(|s| s.lost >= 8).collect();
        let text = summary_text(&worst, d.files, d.lines, 8);
        assert!(text.contains("# 25 `cargo xtask endgames --endings kbnk --defender tablebase --dump` files (141804 moves)"), "{text}");
        assert!(text.ends_with("8/8/8/8/4n1b1/3k4/8/4K3 b - - 10 6\t*\t6232\t1558\t0\n"), "{text}");
        // A note whose counts do not read stops the build with its file.
        let bad = dir.join("bad.tsv");
        std::fs::write(&bad, text.replace("(141804 moves)", "(many moves)")).unwrap();
        let err = read_dumps(&[bad.clone()], &[]).err().expect("refused");
        assert!(err.contains(&format!("{}: a summary's counts that do not read", bad.display())), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `--with-book` dumps' visits where the book answers count at the
    /// position's plies lost a visit in the other dumps; elsewhere they
    /// count as any dump's; a loss where the book answers is no such dump.
    #[test]
    fn the_books_own_visits_count_at_the_searchs_rate() {
        let dir = std::env::temp_dir().join(format!("kbnk_book_with_book_test_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fen = |p: &Chess| shakmaty::fen::Fen::from_position(p, shakmaty::EnPassantMode::Legal).to_string();
        let booked = fen(&position_of(split(entries()[0]).0));
        let other = "8/8/8/4k3/8/8/8/KBN5 w - - 0 1";
        let (searched, by_book) = (dir.join("searched.tsv"), dir.join("by_book.tsv"));
        std::fs::write(&searched, format!("{booked}\tx\t4\t20\t24\n{booked}\tx\t2\t20\t22\n{other}\ta1b2\t2\t20\t22\n")).unwrap();
        let book_line = format!("{booked}\tx\t0\t20\t20\n");
        std::fs::write(&by_book, book_line.repeat(4) + &format!("{other}\ta1b2\t3\t20\t23\n")).unwrap();
        let d = read_dumps(&[searched.clone()], &[by_book.clone()]).unwrap();
        assert_eq!((d.files, d.lines), (2, 8));
        let at = |f: &str| d.seen.values().find(|s| s.fen == f).map(|s| (s.lost, s.visits, s.book_visits)).unwrap();
        // 6 plies in 2 searched visits, and 4 of the book's: 6 + 6 * 4 / 2.
        assert_eq!(at(&booked), (18, 6, 4));
        assert_eq!(at(other), (5, 2, 0));
        // Without `--with-book` the book's visits add nothing lost.
        let plain = read_dumps(&[searched.clone(), by_book.clone()], &[]).unwrap();
        assert_eq!(plain.seen.values().find(|s| s.fen == booked).map(|s| (s.lost, s.visits)), Some((6, 6)));
        // A loss where the book answers: not a dump made with this book.
        std::fs::write(&by_book, format!("{booked}\tx\t2\t20\t22\n")).unwrap();
        let err = read_dumps(&[searched], &[by_book.clone()]).err().expect("refused");
        assert!(err.contains(&format!("{}:1: --with-book", by_book.display())), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_book_is_silent_elsewhere() {
        let pos = |fen: &str| Position::from_fen(fen.as_bytes()).unwrap();
        // The lone king to move, other material, a position not in the book.
        let lone_to_move = pos("8/8/8/4k3/8/8/8/KBN5 b - - 0 1");
        assert!(probe(&lone_to_move, FwColor::White).0.is_none());
        let krk = pos("8/8/8/4k3/8/8/8/KR6 w - - 0 1");
        assert!(probe(&krk, FwColor::White).0.is_none());
        let start = pos("8/8/8/4k3/8/8/8/KBN5 w - - 0 1");
        let c = Canonical::of(&start, FwColor::White).unwrap();
        assert!(entries().iter().all(|&e| split(e).0 != c.key()));
        assert!(probe(&start, FwColor::White).0.is_none());
    }
}
